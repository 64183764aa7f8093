/**
 * The chart of a run: per scenario, one horizontal bar per row that has a baseline, the ratio to
 * it on a log scale around 1×. Green when the row is better than its baseline, red when worse.
 */
import type { Row } from './report.js';

const WIDTH = 1000;
const LABEL = 420;
const BAR = 16;
const GAP = 4;
const TOP = 64;
const MIN_RATIO = 1 / 16;
const MAX_RATIO = 16;
/** The metrics drawn (the table has them all). */
const CHARTED = new Set([
  'throughput',
  'CPU per call',
  'latency p50',
  'tools/list p50',
  'call p50',
  'spawn → initialize result',
  'peak RSS',
]);

const esc = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function chartSvg(rows: readonly Row[], title: string, subtitle: string): string {
  const shown = rows.filter(
    (r) => r.target !== r.baseline && Number.isFinite(r.ratio) && CHARTED.has(r.metric),
  );
  const plot = WIDTH - LABEL - 70;
  const x = (ratio: number): number => {
    const clamped = Math.min(MAX_RATIO, Math.max(MIN_RATIO, ratio));
    const t = (Math.log2(clamped) - Math.log2(MIN_RATIO)) / (Math.log2(MAX_RATIO) - Math.log2(MIN_RATIO));
    return LABEL + t * plot;
  };
  const parts: string[] = [];
  let y = TOP;
  let scenario = '';
  for (const row of shown) {
    if (row.scenario !== scenario) {
      scenario = row.scenario;
      y += 8;
      parts.push(
        `<text x="10" y="${y + 12}" font-weight="bold">${esc(`${scenario} — baseline: ${row.baseline}`)}</text>`,
      );
      y += BAR + GAP;
    }
    const better = row.better === 'higher' ? row.ratio >= 1 : row.ratio <= 1;
    const x0 = Math.min(x(1), x(row.ratio));
    const w = Math.max(1, Math.abs(x(row.ratio) - x(1)));
    parts.push(
      `<text x="${LABEL - 8}" y="${y + 12}" text-anchor="end">${esc(`${row.target} · ${row.metric}`)}</text>`,
      `<rect x="${x0}" y="${y}" width="${w}" height="${BAR}" fill="${better ? '#2e9d4f' : '#d1483b'}"/>`,
      `<text x="${Math.max(x(1), x(row.ratio)) + 4}" y="${y + 12}">${row.ratio.toFixed(2)}×</text>`,
    );
    y += BAR + GAP;
  }
  const height = y + 36;
  const axis: string[] = [];
  for (const tick of [1 / 16, 1 / 4, 1, 4, 16]) {
    const tx = x(tick);
    axis.push(
      `<line x1="${tx}" y1="${TOP}" x2="${tx}" y2="${height - 30}" stroke="${tick === 1 ? '#000' : '#ddd'}"/>`,
      `<text x="${tx}" y="${height - 14}" text-anchor="middle">${tick < 1 ? `1/${1 / tick}` : tick}×</text>`,
    );
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="15" font-weight="bold">${esc(title)}</text>`,
    `<text x="10" y="38" fill="#444">${esc(subtitle)}</text>`,
    `<text x="10" y="54" fill="#666">Ratio to the baseline of the same scenario and metric, measured in the same run (log scale). Green: better, red: worse.</text>`,
    ...axis,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
