/**
 * Keeps the young generation of the V8 heap of the bridge process at its first size (issue 13,
 * deliverable 3: peak RSS ≤ 100 MB under a flood of 10,000 requests). Imported first by the
 * executable only, never by the library or embedded mode: it is a setting of the process.
 *
 * By default V8 doubles the semi-spaces of the young generation up to 16 MiB each while requests
 * keep objects alive across scavenges, so a busy bridge holds 32 MiB of young generation, most of
 * it garbage. At growth factor 1 the young generation stays at 2 MiB. Measured with
 * `node dist/bench/ab.js` on the bundle (same run, 2 cores under load): peak RSS after the
 * overhead run and the flood 99–105 MiB without it, 83–85 MiB with it; the price is more
 * scavenges, about 15% more CPU per call (0.025 → 0.029 ms against the cheap upstream, still under
 * half of the SDK server's own). The flag is read at each growth of the young generation, so
 * setting it at start-up takes effect; `--max-semi-space-size` would not (it is fixed when the
 * heap is set up).
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--semi-space-growth-factor=1');
