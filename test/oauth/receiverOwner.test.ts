/**
 * The owner check of the loopback receiver (SECURITY.md requirement 14): the parse of Linux's
 * `/proc/net/tcp` on sample text, the receiver with an injected lookup (another user, a row not
 * found, no table), the real table for a connection of this process, and, where the tests run as
 * root on Linux, a real connection of the user `nobody`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../../src/oauth/receiver.js';
import type { Receiver, ReceiverOptions } from '../../src/oauth/receiver.js';
import { procNetOwner, scanTable } from '../../src/oauth/loopback/peerOwner.js';
import { endpointHex, findOwner } from '../../src/oauth/loopback/peerTable.js';
import { get, open, readAll, recordingLogger } from './receiverHttp.js';

const AUTHORIZE = 'https://as.example/authorize?response_type=code&state=st-1&client_id=c';
const receivers: Receiver[] = [];

async function receiver(options: Partial<ReceiverOptions> = {}) {
  const logger = recordingLogger();
  const r = await startReceiver({ port: 0, logger, uid: 1000, ...options });
  receivers.push(r);
  const { result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
  return { logger, result, port: Number(new URL(r.redirectUri).port) };
}

/** A GET of the callback on a raw connection; resolves with all the receiver sent. */
async function callback(port: number, code: string): Promise<string> {
  const socket = await open(port);
  const all = readAll(socket);
  socket.write(`GET /callback?code=${code}&state=st-1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  return (await all).text;
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const TABLE = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:A3C6 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 656 1',
  '   1: 0100007F:CE4A 0100007F:A3C6 01 00000000:00000000 00:00000000 00000000  1001        0 7 1',
  '   2: 0100007F:A3C6 0100007F:CE4A 01 00000000:00000000 00:00000000 00000000     0        0 8 1',
  '   3: 0100007F:D000 0100007F:A3C6 01 00000000:00000000 00:00000000 00000000  x        0 9 1',
].join('\n');

describe('the socket table of Linux (pure)', () => {
  it('writes 127.0.0.1:41894 as the kernel does, in both byte orders and both tables', () => {
    expect(endpointHex({ address: '127.0.0.1', port: 41894 }, true)).toEqual({
      v4: '0100007F:A3A6',
      v6: '0000000000000000FFFF00000100007F:A3A6',
    });
    expect(endpointHex({ address: '::ffff:127.0.0.1', port: 80 }, false)).toEqual({
      v4: '7F000001:0050',
      v6: '00000000000000000000FFFF7F000001:0050',
    });
    expect(endpointHex({ address: '::1', port: 80 }, true)).toBeUndefined();
    expect(endpointHex({ address: '127.0.0.256', port: 80 }, true)).toBeUndefined();
  });

  it('reads the whole table: a row behind 60 000 others (about 9 MB) is found, also across the pieces of the read', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'proc-net-'));
    try {
      const file = path.join(dir, 'tcp');
      const filler = (n: number): string =>
        `${String(n).padStart(6)}: 0100007F:${(n % 60_000).toString(16).toUpperCase().padStart(4, '0')} 0100007F:0001 0A 00000000:00000000 00:00000000 00000000  1002        0 ${n} 1 0000000000000000 100 0 0 10 0`;
      const rows = Array.from({ length: 60_000 }, (_, n) => filler(n));
      rows.push(
        '  60000: 0100007F:CE4A 0100007F:A3C6 01 00000000:00000000 00:00000000 00000000  1001        0 7 1',
      );
      writeFileSync(file, `${TABLE.split('\n')[0]}\n${rows.join('\n')}\n`);
      expect(scanTable(file, '0100007F:CE4A', '0100007F:A3C6')).toBe(1001);
      expect(scanTable(file, '0100007F:CE4B', '0100007F:A3C6')).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the uid of the client row: local is the peer, remote is the receiver', () => {
    // Peer 127.0.0.1:52810 (0xCE4A) connected to the receiver on 41926 (0xA3C6).
    expect(findOwner(TABLE, '0100007F:CE4A', '0100007F:A3C6')).toBe(1001);
    // The server's row of the same connection is not the client's.
    expect(findOwner(TABLE, '0100007f:a3c6', '0100007f:ce4a')).toBe(0);
    expect(findOwner(TABLE, '0100007F:CE4B', '0100007F:A3C6')).toBeUndefined();
    expect(findOwner(TABLE, '0100007F:D000', '0100007F:A3C6')).toBeUndefined();
    expect(findOwner('', '0100007F:CE4A', '0100007F:A3C6')).toBeUndefined();
  });

  it('finds a dual-stack client in the table of IPv6', () => {
    const row =
      '   0: 0000000000000000FFFF00000100007F:CE4A 0000000000000000FFFF00000100007F:A3C6 01 ' +
      '00000000:00000000 00:00000000 00000000  1002        0 10 1';
    expect(
      findOwner(row, '0000000000000000FFFF00000100007F:CE4A', '0000000000000000FFFF00000100007F:A3C6'),
    ).toBe(1002);
  });
});

describe('the receiver with an injected owner lookup', () => {
  it('destroys a connection of another user before reading it: no answer, the redirect is not taken, one log line', async () => {
    let owner = 1001;
    const { port, logger, result } = await receiver({
      peerOwner: () => ({ kind: 'uid', uid: owner }),
    });
    expect(await callback(port, 'foreign-1')).toBe('');
    expect(await callback(port, 'foreign-2')).toBe('');
    owner = 1000;
    expect((await get(port, '/callback?code=own&state=st-1')).status).toBe(200);
    expect((await result).code).toBe('own');
    expect(logger.lines).toEqual([
      'oauth: warn: the loopback receiver refused a connection of another user of this machine (uid 1001)',
      'oauth: info: the loopback receiver received the redirect of the sign-in',
    ]);
  });

  it('looks a row that is not found up once more; a row still in no table that could be read is refused', async () => {
    const answers: Array<'missing' | 'own'> = ['missing', 'own', 'missing', 'missing', 'own'];
    const { port, logger, result } = await receiver({
      peerOwner: () => (answers.shift() === 'own' ? { kind: 'uid', uid: 1000 } : { kind: 'missing' }),
    });
    // Found at the second look: served.
    expect((await get(port, '/callback?code=c-9&state=st-2')).status).toBe(400);
    // Not in the table at either look (a row pushed out of reach, an IPv6 peer): refused, unread.
    expect(await callback(port, 'hidden-1')).toBe('');
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(200);
    expect(answers).toEqual([]);
    expect((await result).code).toBe('c-1');
    expect(logger.lines.filter((line) => line.includes('refused a connection'))).toEqual([
      'oauth: warn: the loopback receiver refused a connection whose owner is in no connection table',
    ]);
  });

  it('serves a connection of root (the relay of a forwarded port), who can read the bridge anyway', async () => {
    const { port, result } = await receiver({ peerOwner: () => ({ kind: 'uid', uid: 0 }) });
    expect((await get(port, '/callback?code=c-0&state=st-1')).status).toBe(200);
    expect((await result).code).toBe('c-0');
  });

  it('accepts every connection unchecked without a table, and asks nothing without a uid (Windows)', async () => {
    const none = await receiver({ peerOwner: () => ({ kind: 'unavailable' }) });
    expect((await get(none.port, '/callback?code=c-1&state=st-1')).status).toBe(200);
    let asked = 0;
    const windows = await receiver({
      uid: undefined,
      peerOwner: () => {
        asked += 1;
        return { kind: 'uid', uid: 1 };
      },
    });
    expect((await get(windows.port, '/callback?code=c-1&state=st-1')).status).toBe(200);
    expect(asked).toBe(0);
  });
});

describe('the real socket table', () => {
  it('names this process as the owner of its own loopback connection on Linux, and is unavailable elsewhere', async () => {
    const logger = recordingLogger();
    const r = await startReceiver({ port: 0, logger });
    receivers.push(r);
    const port = Number(new URL(r.redirectUri).port);
    const socket = await open(port);
    const owner = procNetOwner(
      { address: '127.0.0.1', port: socket.localPort! },
      { address: '127.0.0.1', port },
    );
    socket.destroy();
    expect(owner).toEqual(
      process.platform === 'linux' ? { kind: 'uid', uid: process.geteuid!() } : { kind: 'unavailable' },
    );
  });

  // Another uid needs root; `nobody` (65534) exists on every Linux.
  it.runIf(process.platform === 'linux' && process.geteuid?.() === 0)(
    'refuses a real connection of the user nobody, and serves this user',
    async () => {
      const logger = recordingLogger();
      const r = await startReceiver({ port: 0, logger });
      receivers.push(r);
      const port = Number(new URL(r.redirectUri).port);
      const { result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
      const script =
        "const s=require('net').connect(+process.argv[1],'127.0.0.1',()=>s.write(" +
        "'GET /callback?code=foreign&state=st-1 HTTP/1.1\\r\\nHost: 127.0.0.1:'+process.argv[1]+'\\r\\n\\r\\n'));" +
        "let t='';s.on('data',d=>t+=d);s.on('error',()=>{});s.on('close',()=>console.log(JSON.stringify(t)))";
      const child = spawn(process.execPath, ['-e', script, String(port)], {
        uid: 65534,
        gid: 65534,
        cwd: '/',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await new Promise((resolve) => child.once('close', resolve));
      expect(out.trim()).toBe('""');
      expect(logger.lines).toContain(
        'oauth: warn: the loopback receiver refused a connection of another user of this machine (uid 65534)',
      );
      expect((await get(port, '/callback?code=own&state=st-1')).status).toBe(200);
      expect((await result).code).toBe('own');
    },
  );
});
