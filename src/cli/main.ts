#!/usr/bin/env node
/**
 * The entry of the executables `mcp-bridge-vscode` and `mcp-bridge` (mcpBridge.ts selects its
 * profile, then loads this module). To start fast, it starts the upstream command at
 * once (prestart.ts: the pure pre-scan of the command line and a spawn, nothing heavy), and only
 * then loads the CLI (run.ts: yargs, RxJS, the bridge), so that the upstream's own start overlaps
 * the bridge's. The first `initialize` adopts that child (src/node/upstreamConnector.ts).
 * `add` (add/runAdd.ts) and `doctor` (doctor/runDoctor.ts) load none of it.
 */
// First: a setting of the process that must hold before the modules loaded below allocate.
import './youngGeneration.js';
import { selectedProfile } from './entryProfile.js';
import { prestart } from './prestart.js';

const argv = process.argv.slice(2);
if (argv[0] === 'add') {
  // `add` edits a client's settings file: nothing of the bridge loads for it (add/runAdd.ts).
  const { runAddCommand } = await import('./add/runAdd.js');
  runAddCommand(argv.slice(1), selectedProfile().name);
} else if (argv[0] === 'doctor') {
  // `doctor` talks to the upstream itself: no prestarted child, no RxJS, no bridge (docs/doctor.md).
  const { runDoctorCommand } = await import('./doctor/runDoctor.js');
  runDoctorCommand(argv.slice(1), selectedProfile());
} else {
  const early = prestart(argv);
  const { run } = await import('./run.js');
  run(argv, selectedProfile(), early);
}
