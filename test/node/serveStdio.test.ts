/**
 * `serveStdio` of `mcp-bridge-sdk/node` gives a product the executable's behaviour in its own
 * process: the bridge of its profile, the exit codes of
 * docs/cli.md#cli-forms, and its own name in the log lines.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { genericProfile, vscodeProfile } from '../../src/index.js';
import type { Profile } from '../../src/index.js';
import { createStderrLogger, serveStdio } from '../../src/node/index.js';
import { FIXTURE, SCRIPTED, initializeRequest } from '../helpers/bridgeProcess.js';

interface Served {
  readonly send: (frame: object) => void;
  readonly next: () => Promise<Record<string, unknown>>;
  readonly end: () => void;
  readonly code: Promise<number>;
  readonly logs: string[];
}

function serve(profile: Profile, argv: string[]): Served {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const logs: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const waiting: ((frame: Record<string, unknown>) => void)[] = [];
  let buffer = '';
  stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const frame = JSON.parse(buffer.slice(0, at)) as Record<string, unknown>;
      buffer = buffer.slice(at + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(frame);
      else lines.push(frame);
    }
  });
  const code = serveStdio(
    profile,
    { kind: 'command', argv },
    {
      stdin,
      stdout,
      version: '9.9.9',
      logger: createStderrLogger('info', (line) => logs.push(line), profile.name),
    },
  );
  return {
    send: (frame) => stdin.write(`${JSON.stringify(frame)}\n`),
    next: () => {
      const ready = lines.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    end: () => stdin.end(),
    code,
    logs,
  };
}

async function toolsOf(served: Served): Promise<Record<string, unknown>[]> {
  served.send(initializeRequest(1));
  expect(await served.next()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  served.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  let frame = await served.next();
  while (frame['id'] !== 2) frame = await served.next();
  return (frame['result'] as { tools: Record<string, unknown>[] }).tools;
}

describe('serveStdio (mcp-bridge-sdk/node)', () => {
  it('serves the fixture with the generic profile: no items fix, and exit code 0 at the end of stdin', async () => {
    const served = serve(genericProfile, [process.execPath, FIXTURE]);
    const tools = await toolsOf(served);
    const bare = tools.find((tool) => tool['name'] === 'bare_array');
    expect(JSON.stringify(bare?.['inputSchema'])).not.toContain('"items":{}');
    served.end();
    expect(await served.code).toBe(0);
    expect(served.logs.every((line) => line.startsWith('mcp-bridge: '))).toBe(true);
  });

  it('serves the fixture with the VS Code profile: the items fix is applied', async () => {
    const served = serve(vscodeProfile, [process.execPath, FIXTURE]);
    const tools = await toolsOf(served);
    const bare = tools.find((tool) => tool['name'] === 'bare_array');
    expect(JSON.stringify(bare?.['inputSchema'])).toContain('"items":{}');
    served.end();
    expect(await served.code).toBe(0);
  });

  it('resolves 1 when the upstream exits, and logs it under the profile name', async () => {
    const served = serve(genericProfile, [process.execPath, SCRIPTED, '--mode', 'exit-mid-request']);
    served.send(initializeRequest(1));
    await served.next();
    served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    served.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    expect(await served.code).toBe(1);
    expect(served.logs.some((line) => /^mcp-bridge: bridge: error: .*upstream_exited/.test(line))).toBe(true);
  });
});
