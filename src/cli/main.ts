#!/usr/bin/env node
/**
 * The entry of the executables `mcp-bridge-vscode` and `mcp-bridge` (mcpBridge.ts selects its
 * profile, then loads this module). To start fast, it starts the upstream command at
 * once (prestart.ts: the pure pre-scan of the command line and a spawn, nothing heavy), and only
 * then loads the CLI (run.ts: yargs, RxJS, the bridge), so that the upstream's own start overlaps
 * the bridge's. The first `initialize` adopts that child (src/node/upstreamConnector.ts).
 * `add` (add/runAdd.ts) and `doctor` (doctor/runDoctor.ts) load none of it, nor does the shim of
 * the shared bridge (sharedShim.ts, docs/shared.md).
 */
// First: a setting of the process that must hold before the modules loaded below allocate.
import './youngGeneration.js';
import { selectedProfile } from './entryProfile.js';
import { prestart } from './prestart.js';
import { sharedSwitch } from './sharedSwitch.js';

// docs/shared.md#shared-switch: a shim loads only the socket and its records, nothing of the bridge.
const shared = sharedSwitch(process.argv.slice(2), process.env);
const argv = shared.kind === 'error' ? [] : shared.argv;
if (shared.kind === 'error') {
  process.stderr.write(
    `${selectedProfile().name}: ${selectedProfile().logScope}: error: ${shared.message}\n`,
  );
  process.exit(2);
} else if (shared.kind === 'on') {
  const { runShim } = await import('./sharedShim.js');
  await runShim({
    argv: shared.argv,
    env: process.env,
    entry: process.argv[1] ?? '',
    program: selectedProfile().name,
    ...(shared.graceMs === undefined ? {} : { graceMs: shared.graceMs }),
    ...(shared.idleSeconds === undefined ? {} : { idleSeconds: shared.idleSeconds }),
  });
} else if (argv[0] === 'shared') {
  // `shared daemon|status|stop` (docs/shared.md#shared-status): the shared process loads the bridge.
  const { runSharedCommand } = await import('./sharedCli.js');
  runSharedCommand(argv.slice(1), selectedProfile());
} else if (argv[0] === 'add') {
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
