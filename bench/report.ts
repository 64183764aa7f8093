/**
 * The rows of a benchmark run: one value per run and target, summarized as median and spread,
 * with the ratio to the row's baseline measured in the same run.
 */
import { summarize } from './stats.js';
import type { Summary } from './stats.js';

export type Better = 'higher' | 'lower';

export interface MetricSpec {
  /** e.g. `throughput`, `p50`. */
  readonly name: string;
  readonly unit: string;
  readonly better: Better;
}

export const THROUGHPUT: MetricSpec = { name: 'throughput', unit: 'calls/s', better: 'higher' };
export const P50: MetricSpec = { name: 'latency p50', unit: 'ms', better: 'lower' };
export const P90: MetricSpec = { name: 'latency p90', unit: 'ms', better: 'lower' };
export const P99: MetricSpec = { name: 'latency p99', unit: 'ms', better: 'lower' };
export const CPU: MetricSpec = { name: 'CPU per call', unit: 'ms', better: 'lower' };
export const WRITES: MetricSpec = { name: 'write syscalls per call', unit: 'count', better: 'lower' };
export const START: MetricSpec = { name: 'spawn → initialize result', unit: 'ms', better: 'lower' };
export const PEAK_RSS: MetricSpec = { name: 'peak RSS', unit: 'MiB', better: 'lower' };

interface Cell {
  readonly scenario: string;
  readonly metric: MetricSpec;
  readonly target: string;
  readonly values: number[];
}

export interface Row extends Summary {
  readonly scenario: string;
  readonly metric: string;
  readonly unit: string;
  readonly better: Better;
  readonly target: string;
  readonly baseline: string;
  /** Median of this row / median of the baseline row (same scenario and metric). */
  readonly ratio: number;
  readonly values: readonly number[];
}

export interface Errors {
  scenario: string;
  target: string;
  requests: number;
  wrong: number;
  missing: number;
  samples: string[];
}

export interface Recorder {
  /** The first target recorded for a scenario and metric is its baseline. */
  add(scenario: string, metric: MetricSpec, target: string, value: number): void;
  /** Counts requests, wrong and missing answers of a target. */
  count(
    scenario: string,
    target: string,
    requests: number,
    wrong: number,
    missing: number,
    sample?: string,
  ): void;
  /** A note printed under the table (gaps, failures). */
  note(text: string): void;
  rows(): Row[];
  errors(): Errors[];
  notes(): string[];
}

export function createRecorder(): Recorder {
  const cells = new Map<string, Cell>();
  const baselines = new Map<string, string>();
  const errors = new Map<string, Errors>();
  const notes: string[] = [];
  return {
    add(scenario, metric, target, value) {
      const group = `${scenario}\u0000${metric.name}`;
      if (!baselines.has(group)) baselines.set(group, target);
      const key = `${group}\u0000${target}`;
      let cell = cells.get(key);
      if (cell === undefined) cells.set(key, (cell = { scenario, metric, target, values: [] }));
      if (Number.isFinite(value)) cell.values.push(value);
    },
    count(scenario, target, requests, wrong, missing, sample) {
      const key = `${scenario}\u0000${target}`;
      let entry = errors.get(key);
      if (entry === undefined)
        errors.set(key, (entry = { scenario, target, requests: 0, wrong: 0, missing: 0, samples: [] }));
      entry.requests += requests;
      entry.wrong += wrong;
      entry.missing += missing;
      if (sample !== undefined && entry.samples.length < 2) entry.samples.push(sample);
    },
    note: (text) => void notes.push(text),
    rows() {
      const summaries = new Map<string, Summary>();
      for (const [key, cell] of cells) summaries.set(key, summarize(cell.values));
      return [...cells.entries()].map(([key, cell]) => {
        const group = `${cell.scenario}\u0000${cell.metric.name}`;
        const baseline = baselines.get(group) ?? cell.target;
        const own = summaries.get(key)!;
        const base = summaries.get(`${group}\u0000${baseline}`)!;
        return {
          scenario: cell.scenario,
          metric: cell.metric.name,
          unit: cell.metric.unit,
          better: cell.metric.better,
          target: cell.target,
          baseline,
          ...own,
          ratio: own.median / base.median,
          values: cell.values,
        };
      });
    },
    errors: () => [...errors.values()],
    notes: () => notes,
  };
}

const fmt = (value: number): string => {
  if (!Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  if (abs >= 1000) return value.toFixed(0);
  if (abs >= 100) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
};

/** The rows as a Markdown table (also what the console shows). */
export function markdownTable(rows: readonly Row[], errors: readonly Errors[]): string {
  const bad = new Map(errors.map((e) => [`${e.scenario}\u0000${e.target}`, e]));
  const lines = [
    '| scenario | metric | target | median | spread (min–max) | ratio to baseline | wrong / missing |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    const e = bad.get(`${row.scenario}\u0000${row.target}`);
    const ratio = row.target === row.baseline ? 'baseline' : `${row.ratio.toFixed(2)}×`;
    lines.push(
      `| ${row.scenario} | ${row.metric} (${row.unit}) | ${row.target} | ${fmt(row.median)} | ` +
        `${fmt(row.min)}–${fmt(row.max)} | ${ratio} | ${e === undefined ? '—' : `${e.wrong} / ${e.missing}`} |`,
    );
  }
  return lines.join('\n');
}
