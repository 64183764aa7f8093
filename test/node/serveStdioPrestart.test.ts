/**
 * `serveStdio` with a child started before it (`prestarted` of a command upstream): the
 * first `initialize` adopts it, a child of other arguments is stopped and the upstream's own
 * command runs, and a child that no `initialize` adopted is stopped before serveStdio resolves.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { vscodeProfile } from '../../src/index.js';
import { createStderrLogger, serveStdio, startUpstreamChild } from '../../src/node/index.js';
import type { UpstreamChild } from '../../src/node/index.js';
import { initializeRequest } from '../helpers/bridgeProcess.js';

/** Appends its name to the file of its first argument, answers server/discover with that name. */
const UPSTREAM = [
  "const fs = require('node:fs');",
  'const [file, name] = process.argv.slice(1);',
  "fs.appendFileSync(file, name + '\\n');",
  "require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {",
  '  const m = JSON.parse(line);',
  "  if (m.method === 'server/discover') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id,",
  "    result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {},",
  "      _meta: { 'io.modelcontextprotocol/serverInfo': { name, version: '1.0.0' } } } }) + '\\n');",
  "}).on('close', () => process.exit(0));",
].join('\n');

let dir: string;
let count = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'serve-prestart-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const upstream = (file: string, name: string): [string, ...string[]] => [
  process.execPath,
  '-e',
  UPSTREAM,
  file,
  name,
];
const startsIn = (file: string): string[] => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};
/** Whether the child has exited by now: onExit calls back at once for an exit it has seen. */
function exited(child: UpstreamChild): boolean {
  let seen = false;
  child.onExit(() => (seen = true));
  return seen;
}

function serve(argv: readonly string[], prestarted: UpstreamChild) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const code = serveStdio(
    vscodeProfile,
    { kind: 'command', argv, prestarted },
    { stdin, stdout, version: '9.9.9', logger: createStderrLogger('err', () => undefined, 'test') },
  );
  const response = async (): Promise<Record<string, unknown>> => {
    await waitFor(() => text.includes('\n'), { what: 'the first response' });
    return JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, unknown>;
  };
  return { stdin, code, response };
}

describe('serveStdio with a prestarted child', () => {
  it('adopts it on the first initialize: one start', async () => {
    const file = join(dir, `starts-${++count}`);
    const argv = upstream(file, 'early');
    const child = startUpstreamChild(argv);
    const served = serve([...argv], child);
    served.stdin.write(`${JSON.stringify(initializeRequest(1))}\n`);
    const response = await served.response();
    expect((response.result as { serverInfo: unknown }).serverInfo).toEqual({
      name: 'early',
      version: '1.0.0',
    });
    expect(startsIn(file)).toEqual(['early']);
    served.stdin.end();
    expect(await served.code).toBe(0);
    expect(exited(child)).toBe(true);
  });

  it('stops a child of other arguments and starts its own command on initialize', async () => {
    const file = join(dir, `starts-${++count}`);
    const child = startUpstreamChild(upstream(file, 'other'));
    const served = serve(upstream(file, 'own'), child);
    await new Promise<void>((resolve) => child.onExit(() => resolve()));
    served.stdin.write(`${JSON.stringify(initializeRequest(1))}\n`);
    const response = await served.response();
    expect((response.result as { serverInfo: unknown }).serverInfo).toEqual({
      name: 'own',
      version: '1.0.0',
    });
    served.stdin.end();
    expect(await served.code).toBe(0);
  });

  it('stops a child that no initialize adopted before it resolves', async () => {
    const file = join(dir, `starts-${++count}`);
    const argv = upstream(file, 'unused');
    const child = startUpstreamChild(argv);
    const served = serve([...argv], child);
    await new Promise<void>((resolve) => child.onStart(() => resolve()));
    served.stdin.end();
    expect(await served.code).toBe(0);
    expect(exited(child)).toBe(true);
  });
});
