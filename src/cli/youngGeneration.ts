/**
 * Caps the young generation of the V8 heap of the bridge process at 8 MiB, so that a flood of
 * 10,000 requests stays under a peak RSS of 100 MB (bench/README.md). Imported first by the
 * executable only, never by the library or embedded mode: it is a setting of the process.
 *
 * By default V8 doubles the two semi-spaces of the young generation up to 16 MiB each while
 * requests keep objects alive across scavenges, so a busy bridge holds 32 MiB of young
 * generation, most of it garbage. `--max-semi-space-size` cannot be set once the heap exists, but
 * `--semi-space-growth-factor` is read at each growth: after the garbage collection that takes
 * the young generation to 8 MiB, the factor becomes 1 and it grows no more. Measured on the bundle
 * with `node dist/bench/ab.js` (same run, 2 cores under load), against no setting: peak RSS after
 * the overhead run and the flood 99–105 MiB → 76 MiB, CPU per call 0.024 → 0.018 ms (cheap echo
 * upstream) and 0.043 → 0.041 ms (SDK fixture). Stopping the growth at once (2 MiB) also gave
 * 83 MiB but cost about 15% more CPU per call: too many scavenges.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Both semi-spaces of the young generation, in bytes. */
const CAP_BYTES = 8 * 1024 * 1024;

const youngGenerationBytes = (): number =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

// Watches garbage collections only until the cap is reached; an idle bridge runs nothing here.
const watcher = new PerformanceObserver(() => {
  if (youngGenerationBytes() < CAP_BYTES) return;
  setFlagsFromString('--semi-space-growth-factor=1');
  watcher.disconnect();
});
watcher.observe({ entryTypes: ['gc'] });
