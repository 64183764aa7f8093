/**
 * Five processes write sign-ins into one file store at once (the built store: `npm run build`
 * first): every record and every index entry survives, because index updates hold the
 * cross-process lock (store/index.ts), and no temporary file is left behind.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTokenStore } from '../../src/oauth/store/openStore.js';
import { KEY_A, makeRecord, recordingLogger, tempDir } from './storeTestKit.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const OPEN_MODULE = pathToFileURL(path.join(root, 'dist/src/oauth/store/openStore.js')).href;

const CHILD = `
const { openTokenStore } = await import(${JSON.stringify(OPEN_MODULE)});
const [dir, key, n, record] = process.argv.slice(1);
const logger = { enabled: () => true, log: (scope, level, text) => { if (level !== 'info') process.stderr.write(level + ' ' + text + '\\n'); } };
const opened = await openTokenStore({ tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: key }, service: 's', directory: dir }, logger);
if (!opened.ok) throw new Error(opened.message);
for (let i = 0; i < 3; i += 1) {
  const url = 'https://p' + n + '-' + i + '.example.test/mcp';
  await opened.store.write({ ...JSON.parse(record), url, savedAt: Date.now() });
}
process.stdout.write('done');
`;

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, ...args], { stdio: 'pipe' });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  dir = path.join(dir, 'tokens');
});
afterEach(() => cleanup());

describe('file store shared by processes', () => {
  it('keeps every record and index entry of five processes writing at once', async () => {
    // The first open creates the directory and the key check, as the first bridge start would.
    await openTokenStore(
      { tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A }, service: 's', directory: dir },
      recordingLogger(),
    );
    const record = JSON.stringify(makeRecord());
    const results = await Promise.all([0, 1, 2, 3, 4].map((n) => run([dir, KEY_A, String(n), record])));
    expect(results).toEqual(Array.from({ length: 5 }, () => ({ code: 0, out: 'done', err: '' })));
    const opened = await openTokenStore(
      { tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A }, service: 's', directory: dir },
      recordingLogger(),
    );
    if (!opened.ok) throw new Error(opened.message);
    const urls = (await opened.store.list()).map((key) => key.url).sort();
    const expected = [0, 1, 2, 3, 4]
      .flatMap((n) => [0, 1, 2].map((i) => `https://p${n}-${i}.example.test/mcp`))
      .sort();
    expect(urls).toEqual(expected);
    for (const url of expected)
      expect((await opened.store.read(makeRecord({ url })))?.accessToken).toBe('access-token-9f3b2c');
    const names = await readdir(dir);
    expect(names.filter((name) => !name.endsWith('.token') && name !== 'key-check')).toEqual([]);
  });
});
