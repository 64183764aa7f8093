/**
 * The layers of ARCHITECTURE.md are the zones of eslint.config.js: both tables agree, every source
 * folder is a layer, and the real config refuses an import against the arrows and lets the others
 * pass. The imports are linted with the config's own `no-restricted-imports` options, without type
 * information, so that this stays fast.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const RULE = '@typescript-eslint/no-restricted-imports';

interface ConfigModule {
  readonly LAYERS: Readonly<Record<string, readonly string[]>>;
}

/** The rows of the layer table of ARCHITECTURE.md: layer -> the layers it sits on. */
function documentedLayers(): Record<string, string[]> {
  const text = readFileSync(new URL('ARCHITECTURE.md', ROOT), 'utf8');
  const rows = [...text.matchAll(/^\| `([^`]+)` +\| ([^|]+)\|/gm)];
  return Object.fromEntries(
    rows.map((row) => [row[1] ?? '', [...(row[2] ?? '').matchAll(/`([^`]+)`/g)].map((name) => name[1] ?? '')]),
  );
}

const eslint = new ESLint({ cwd: new URL('.', ROOT).pathname });
const linter = new Linter({ configType: 'flat' });
const zones = new Map<string, unknown>();

/** The messages of the zone of `file` for one import line. */
async function refusals(file: string, specifier: string, typeOnly = false): Promise<string[]> {
  if (!zones.has(file)) {
    const config = (await eslint.calculateConfigForFile(file)) as { rules: Record<string, unknown> };
    zones.set(file, config.rules[RULE]);
  }
  const code = typeOnly ? `import type { X } from '${specifier}';\n` : `import { x } from '${specifier}';\n`;
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { '@typescript-eslint': tseslint.plugin },
        rules: { [RULE]: zones.get(file) as Linter.RuleEntry },
      },
    ],
    { filename: file },
  );
  return messages.map((message) => message.message);
}

describe('the layers', () => {
  let layers: ConfigModule['LAYERS'];
  beforeAll(async () => {
    layers = ((await import(new URL('eslint.config.js', ROOT).href)) as ConfigModule).LAYERS;
  });

  it('ARCHITECTURE.md and eslint.config.js have the same table', () => {
    expect(documentedLayers()).toEqual(layers);
  });

  it('every folder of src/ (but the declarations of src/types) and operators/ is a layer', () => {
    const folders = readdirSync(new URL('src/', ROOT), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'types')
      .map((entry) => `src/${entry.name}`);
    expect(Object.keys(layers).sort()).toEqual([...folders, 'operators', 'src/index.ts'].sort());
    expect(Object.keys(layers).sort()).toEqual([
      'operators',
      'src/bridge',
      'src/cli',
      'src/codec',
      'src/edges',
      'src/embed',
      'src/index.ts',
      'src/node',
      'src/oauth',
      'src/ports',
      'src/profiles',
      'src/protocol',
      'src/telemetry',
      'src/testing',
    ]);
  });

  it.each([
    ['src/protocol/jsonrpc.ts', '../ports/logger.js', 'src/protocol does not import src/ports'],
    ['src/ports/logger.ts', '../codec/meta.js', 'src/ports does not import src/codec'],
    ['src/ports/upstream.ts', '../bridge/createBridge.js', 'src/ports does not import src/bridge'],
    ['src/codec/meta.ts', '../bridge/createBridge.js', 'src/codec does not import src/bridge'],
    ['operators/reopenListen.ts', '../src/bridge/subscriptions.js', 'operators does not import src/bridge'],
    ['operators/internal/runTask.ts', '../../src/edges/stdio.js', 'operators does not import src/edges'],
    ['src/bridge/consent.ts', '../oauth/upstreamAuth.js', 'src/bridge does not import src/oauth'],
    ['src/bridge/session.ts', '../edges/stdio.js', 'src/bridge does not import src/edges'],
    ['src/edges/http/exchange.ts', '../../bridge/createBridge.js', 'src/edges does not import src/bridge'],
    ['src/edges/http/exchange.ts', '../../oauth/upstreamAuth.js', 'src/edges does not import src/oauth'],
    ['src/oauth/store/lock.ts', '../../bridge/createBridge.js', 'src/oauth does not import src/bridge'],
    ['src/profiles/vscode.ts', '../edges/stdio.js', 'src/profiles does not import src/edges'],
    ['src/index.ts', './edges/stdio.js', 'src/index.ts does not import src/edges'],
    ['src/node/serveStdio.ts', '../oauth/upstreamAuth.js', 'src/node does not import src/oauth'],
    ['src/node/serveStdio.ts', '../embed/index.js', 'src/node does not import src/embed'],
    ['src/cli/run.ts', '../embed/index.js', 'src/cli does not import src/embed'],
    ['src/testing/events.ts', '../bridge/createBridge.js', 'src/testing does not import src/bridge'],
    ['src/bridge/session.ts', 'mcp-bridge-sdk/operators', 'Import the sources, not the package'],
    ['src/bridge/session.ts', 'node:fs', 'src/bridge runs in any runtime'],
    ['src/codec/meta.ts', 'rxjs', 'src/codec is pure: no rxjs'],
    ['src/ports/upstream.ts', 'rxjs', 'src/ports loads no rxjs'],
    ['operators/mergeInOrder.ts', 'rxjs/internal/Subscriber', 'Operators use the public rxjs API'],
    ['src/bridge/session.ts', '../index.js', 'src/bridge does not import the root entry src/index.ts'],
    ['src/protocol/errors.ts', '../index', 'src/protocol does not import the root entry src/index.ts'],
    ['src/oauth/store/lock.ts', '../../index.js', 'src/oauth does not import the root entry src/index.ts'],
    ['src/node/serveStdio.ts', '../index.js', 'src/node does not import the root entry src/index.ts'],
    ['src/cli/run.ts', '../index.ts', 'src/cli does not import the root entry src/index.ts'],
    ['operators/limitInFlight.ts', '../src/index.js', 'operators does not import the root entry src/index.ts'],
    ['operators/internal/runTask.ts', '../../src/index.js', 'operators does not import the root entry src/index.ts'],
    ['src/bridge/a/b/c/d/e/f.ts', '../../../../../../index.js', 'src/bridge does not import the root entry'],
    [
      'src/bridge/session.ts',
      '../../operators/internal/laneScheduler.js',
      'src/bridge does not import operators/internal/: only operators/ does',
    ],
    [
      'src/edges/httpFront/server.ts',
      '../../../operators/internal/inFlightTasks.js',
      'src/edges does not import operators/internal/: only operators/ does',
    ],
    [
      'src/embed/modernPath.ts',
      '../../operators/internal/timeLimit.js',
      'src/embed does not import operators/internal/: only operators/ does',
    ],
    ['src/index.ts', '../operators/internal/timeLimit.js', 'src/index.ts does not import operators/internal/'],
  ])('%s may not import %s', async (file, specifier, why) => {
    const messages = await refusals(file, specifier);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(why);
  });

  it.each([
    ['src/ports/upstream.ts', '../protocol/jsonrpc.js'],
    ['src/codec/meta.ts', '../ports/upstream.js'],
    ['operators/reopenListen.ts', '../src/ports/upstream.js'],
    ['src/bridge/session.ts', '../../operators/driveInputRounds.js'],
    ['src/bridge/session.ts', './laneScheduler.js'],
    ['operators/limitInFlight.ts', './internal/inFlightTasks.js'],
    ['operators/internal/driveRounds.ts', './inputRound.js'],
    ['src/oauth/store/openStore.ts', './index.js'],
    ['src/node/index.ts', '../codec/input/index.js'],
    ['src/bridge/dispatch.ts', '../codec/input/index.js'],
    ['src/bridge/session.ts', '../codec/meta.js'],
    ['src/edges/childProcess.ts', '../../operators/decodeLines.js'],
    ['src/edges/stdio.ts', 'node:fs'],
    ['src/oauth/http.ts', '../edges/http/lookup.js'],
    ['src/profiles/bridge.ts', '../bridge/createBridge.js'],
    ['src/index.ts', './profiles/vscode.js'],
    ['src/node/serveStdio.ts', '../edges/stdio.js'],
    ['src/node/serveStdio.ts', '../profiles/bridge.js'],
    ['src/embed/serveDualEra.ts', '../node/inputChecks.js'],
    ['src/cli/run.ts', '../oauth/upstreamAuth.js'],
    ['src/cli/run.ts', '../node/serveStdio.js'],
    ['src/testing/fakeUpstream.ts', '../ports/upstream.js'],
    ['src/profiles/bridge.ts', './bridge.js'],
  ])('%s may import %s', async (file, specifier) => {
    expect(await refusals(file, specifier)).toEqual([]);
  });

  it('src/ports may import the types of rxjs', async () => {
    expect(await refusals('src/ports/upstream.ts', 'rxjs', true)).toEqual([]);
  });
});
