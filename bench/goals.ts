/** The targets of issues 7 and 13, checked against the rows of one run. */
import type { Errors, Row } from './report.js';
import { HTTP_CHEAP } from './scenarios/http.js';
import { OVERHEAD, REALISTIC } from './scenarios/stdio.js';
import { LEAK, STALL } from './scenarios/memory.js';
import { START_HTTP, START_STDIO } from './scenarios/startup.js';
import { EMBEDDED, SDK_LEGACY_PATH, SDK_MODERN_PATH, SDK_PATHS } from './scenarios/embedded.js';
import {
  SERVER_ALONE,
  SHARED_RSS,
  SHARED_START,
  SHARED_TREES,
  STDIO_TREES,
  TREE_RSS,
  WARM_SHIM,
} from './scenarios/shared.js';

export interface Goal {
  readonly goal: string;
  readonly measured: string;
  readonly pass: boolean | undefined;
  /** A measured floor printed beside the targets it bounds, not a target itself. */
  readonly floor?: true;
}

const ratioText = (value: number): string =>
  Number.isFinite(value) ? `${value.toFixed(2)}×` : 'not measured';

export function checkGoals(rows: readonly Row[], errors: readonly Errors[]): Goal[] {
  const find = (scenario: string, metric: string, target: string): Row | undefined =>
    rows.find((r) => r.scenario === scenario && r.metric === metric && r.target === target);
  const ratio = (scenario: string, metric: string, target: string, base: string): number => {
    const a = find(scenario, metric, target);
    const b = find(scenario, metric, base);
    return a === undefined || b === undefined ? NaN : a.median / b.median;
  };
  const goal = (text: string, value: number, limit: number, atMost: boolean, unit = '×'): Goal => ({
    goal: text,
    measured: Number.isFinite(value)
      ? `${value.toFixed(unit === '×' ? 2 : 3)}${unit === '×' ? '×' : ` ${unit}`}`
      : 'not measured',
    pass: Number.isFinite(value) ? (atMost ? value <= limit : value >= limit) : undefined,
  });
  const p50 = (target: string): number => find(OVERHEAD, 'latency p50', target)?.median ?? NaN;
  const httpErrors = errors.filter((e) => e.scenario === HTTP_CHEAP && e.target === 'bridge (URL)');
  const wrong = httpErrors.reduce((sum, e) => sum + e.wrong + e.missing, 0);
  const rss = find(OVERHEAD, 'peak RSS', 'bridge')?.max ?? NaN;
  const growth = find(LEAK, 'RSS growth after 20,000', 'bridge')?.median ?? NaN;
  const stall = errors.filter((e) => e.scenario === STALL && e.target === 'bridge');
  const stallLost = stall.reduce((sum, e) => sum + e.wrong + e.missing, 0);
  return [
    goal(
      'bridge CPU per call ≤ 0.5 × SDK 2.x server CPU per call (stdio)',
      ratio(OVERHEAD, 'CPU per call', 'bridge', 'SDK fixture direct (CPU reference)'),
      0.5,
      true,
    ),
    goal(
      'cheap upstream: throughput ≥ 0.6 × no-bridge floor',
      ratio(OVERHEAD, 'throughput', 'bridge', 'direct (floor)'),
      0.6,
      false,
    ),
    goal(
      'cheap upstream: added p50 latency ≤ 0.1 ms',
      p50('bridge') - p50('direct (floor)'),
      0.1,
      true,
      'ms',
    ),
    goal(
      '2.x fixture: throughput ≥ 0.9 × its own modern ceiling',
      ratio(REALISTIC, 'throughput', 'bridge → fixture', 'SDK fixture direct'),
      0.9,
      false,
    ),
    goal(
      'HTTP cheap upstream: throughput ≥ 3 × mcp-remote',
      ratio(HTTP_CHEAP, 'throughput', 'bridge (URL)', 'mcp-remote --protocol auto'),
      3,
      false,
    ),
    goal(
      'HTTP cheap upstream: p50 ≤ 0.5 × mcp-remote',
      ratio(HTTP_CHEAP, 'latency p50', 'bridge (URL)', 'mcp-remote --protocol auto'),
      0.5,
      true,
    ),
    {
      goal: 'HTTP cheap upstream: zero wrong or missing answers (bridge)',
      measured: `${wrong}`,
      pass: httpErrors.length > 0 ? wrong === 0 : undefined,
    },
    goal(
      'start-up ≤ 1.2 × fixture served in-process',
      ratio(START_STDIO, 'spawn → initialize result', 'bridge → fixture', 'SDK dual-era in-process'),
      1.2,
      true,
    ),
    {
      // Not a target: what no node bridge in front of this server can beat (node's own boot is
      // in series with the child's start), so the target above is read against it.
      goal: 'floor: a node process that only spawns the fixture, start-up vs fixture in-process',
      measured: ratioText(
        ratio(
          START_STDIO,
          'spawn → initialize result',
          'node spawner → SDK dual-era (floor of a node bridge)',
          'SDK dual-era in-process',
        ),
      ),
      pass: undefined,
      floor: true,
    },
    goal(
      'start-up ≤ 0.6 × mcp-remote',
      ratio(START_HTTP, 'spawn → initialize result', 'bridge (URL)', 'mcp-remote --protocol auto'),
      0.6,
      true,
    ),
    goal(
      'bridge peak RSS ≤ 100 MB under a flood of 10,000 requests',
      (rss * 1024 * 1024) / 1e6,
      100,
      true,
      'MB',
    ),
    {
      // GC makes VmRSS move by about ±1 MiB between samples; a leak of 100 bytes per call is 1 MiB.
      goal: 'no RSS growth trend over 100,000 sequential calls (slope ≤ 1,024 KiB per 10,000)',
      measured: Number.isFinite(growth) ? `${growth.toFixed(0)} KiB per 10,000 calls` : 'not measured',
      pass: Number.isFinite(growth) ? growth <= 1024 : undefined,
    },
    goal(
      'embedded legacy path ≥ 1 × the SDK dual-era shim (throughput)',
      ratio(EMBEDDED, 'throughput', 'serveDualEra (embedded)', 'SDK dual-era in-process'),
      1,
      false,
    ),
    {
      // Not a target: the embedded legacy path must drive the server's 2026-07-28 path (reference
      // §7), whose own cost against the shim's path bounds the goal above.
      goal: 'floor: SDK server CPU per call, its 2026-07-28 path vs its 2025-11-25 path',
      measured: ratioText(ratio(SDK_PATHS, 'CPU per call', SDK_MODERN_PATH, SDK_LEGACY_PATH)),
      pass: undefined,
      floor: true,
    },
    goal(
      'shared: a shim joining a warm upstream starts in ≤ 0.5 × the server alone',
      ratio(SHARED_START, 'spawn → initialize result', WARM_SHIM, SERVER_ALONE),
      0.5,
      true,
    ),
    goal(
      'shared: 20 shims + shared process ≤ 0.5 × the memory of 20 stdio bridges with upstreams',
      ratio(SHARED_RSS, TREE_RSS.name, SHARED_TREES, STDIO_TREES),
      0.5,
      true,
    ),
    {
      goal: 'client not reading stdout: every answer arrives afterwards (bridge)',
      measured: stall.length > 0 ? `${stallLost} wrong or missing` : 'not measured',
      pass: stall.length > 0 ? stallLost === 0 : undefined,
    },
  ];
}
