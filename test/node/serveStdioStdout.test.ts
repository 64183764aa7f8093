/**
 * A stdout that fails ends the session of serveStdio (src/edges/stdio.ts `writeLines`): the
 * bridge no longer runs on while every answer is lost. EPIPE (the client went away) ends it as
 * the end of stdin does, quietly with code 0; any other failure is logged once, then the same.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { genericProfile } from '../../src/index.js';
import { createStderrLogger, serveStdio } from '../../src/node/index.js';
import { FIXTURE, initializeRequest } from '../helpers/bridgeProcess.js';

/** A stdout whose every write fails with `code`, as a pipe whose reader went away. */
const failingStdout = (code: string): Writable =>
  new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error(`write ${code}`), { code }));
    },
  });

describe('serveStdio with a stdout that fails', () => {
  it.each([
    { code: 'EPIPE', logged: [] },
    { code: 'EIO', logged: ['mcp-bridge: bridge: error: writing to stdout failed (Error EIO)\n'] },
  ])('$code: the session ends with code 0 while stdin is still open', async ({ code, logged }) => {
    const stdin = new PassThrough();
    const logs: string[] = [];
    const exit = serveStdio(
      genericProfile,
      { kind: 'command', argv: [process.execPath, FIXTURE] },
      {
        stdin,
        stdout: failingStdout(code),
        version: '9.9.9',
        logger: createStderrLogger('info', (line) => logs.push(line), genericProfile.name),
      },
    );
    // The answer to initialize is the first write; stdin is never ended.
    stdin.write(`${JSON.stringify(initializeRequest(1))}\n`);
    expect(await exit).toBe(0);
    expect(stdin.writableEnded).toBe(false);
    expect(logs).toEqual(logged);
  });
});
