/**
 * The second executable `mcp-bridge` is the CLI of `mcp-bridge-vscode`
 * with the generic profile: its own name starts its log and diagnostic lines. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BRIDGE, GENERIC_BRIDGE, initializeRequest, note, req, scripted } from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo, spawnPeer } from '../helpers/rawPeer.js';

afterEach(killAllPeers);

describe('mcp-bridge', () => {
  it('names itself in the diagnostic of an invalid command line, and exits with 2', () => {
    const run = spawnSync(process.execPath, [GENERIC_BRIDGE, '--no-such-option'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')[0]).toMatch(/^mcp-bridge: bridge: error: /);
    const vscode = spawnSync(process.execPath, [BRIDGE, '--no-such-option'], { encoding: 'utf8' });
    expect(vscode.stderr.split('\n')[0]).toMatch(/^mcp-bridge-vscode: vscode: error: /);
  });

  it('names itself in its log lines when the upstream exits, and exits with 1', async () => {
    const peer = spawnPeer(process.execPath, [GENERIC_BRIDGE, '--', ...scripted('exit-mid-request')]);
    peer.send(initializeRequest(1));
    expect((await peer.nextFrame(responseTo(1))).result).toBeDefined();
    peer.send(note('notifications/initialized'));
    peer.send(req(2, 'tools/call', { name: 'echo', arguments: {} }));
    const { code } = await peer.exit;
    expect(code).toBe(1);
    // The upstream child writes to the same stderr; every other line is the bridge's.
    const own = peer.stderr.filter((line) => !line.startsWith('scripted-upstream: '));
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((line) => !line.startsWith('mcp-bridge: '))).toEqual([]);
  });
});
