/**
 * Where the front end listens (docs/serve.md#serve-loopback): both loopback addresses on one
 * port, port 0 tried again when the other family holds the port the first got, a taken address
 * refused, a missing family one line. Fake servers stand for the sockets, so the ports and the
 * failures are the test's.
 */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { bindAddresses, listenAll } from '../../../src/edges/httpFront/listen.js';
import type { Logger } from '../../../src/ports/logger.js';

/** The machine: which address:port pairs are taken, which addresses do not exist, the free ports. */
interface Machine {
  readonly taken: Set<string>;
  readonly missing: Set<string>;
  readonly freePorts: number[];
  /** What this server bound (not what others hold). */
  readonly listening: string[];
}

function fakeServer(machine: Machine): Server {
  const server = new EventEmitter() as EventEmitter & Record<string, unknown>;
  let bound: { address: string; port: number } | undefined;
  server['listen'] = (options: { port: number; host: string }, done: () => void) => {
    const port = options.port === 0 ? machine.freePorts.shift()! : options.port;
    const key = `${options.host}|${port}`;
    const fail = (code: string): void => {
      queueMicrotask(() =>
        server.emit('error', Object.assign(new Error(code), { code, address: options.host, port })),
      );
    };
    if (machine.missing.has(options.host)) return fail('EADDRNOTAVAIL');
    if (machine.taken.has(key)) return fail('EADDRINUSE');
    machine.taken.add(key);
    machine.listening.push(key);
    bound = { address: options.host, port };
    queueMicrotask(done);
  };
  server['address'] = () => bound;
  server['close'] = (done: () => void) => {
    if (bound !== undefined) {
      const key = `${bound.address}|${bound.port}`;
      machine.taken.delete(key);
      machine.listening.splice(machine.listening.indexOf(key), 1);
    }
    queueMicrotask(done);
  };
  return server as unknown as Server;
}

function setUp(init: Partial<Machine> = {}): { machine: Machine; lines: string[]; logger: Logger } {
  const machine: Machine = { taken: new Set(), missing: new Set(), freePorts: [], listening: [], ...init };
  const lines: string[] = [];
  const logger: Logger = {
    enabled: () => true,
    log: (_scope, level, text) => void lines.push(`${level}: ${text}`),
  };
  return { machine, lines, logger };
}

describe('bindAddresses', () => {
  it('binds both loopback addresses for 127.0.0.1, ::1 and localhost, the named one first; another address alone', () => {
    expect(bindAddresses('127.0.0.1')).toEqual(['127.0.0.1', '::1']);
    expect(bindAddresses('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(bindAddresses('::1')).toEqual(['::1', '127.0.0.1']);
    expect(bindAddresses('127.0.0.2')).toEqual(['127.0.0.2']);
    expect(bindAddresses('0.0.0.0')).toEqual(['0.0.0.0']);
  });
});

describe('listenAll', () => {
  it('listens on 127.0.0.1 and ::1 with the port the first got', async () => {
    const { machine, lines, logger } = setUp({ freePorts: [40001] });
    const bound = await listenAll(() => fakeServer(machine), '127.0.0.1', 0, logger);
    expect(bound.port).toBe(40001);
    expect(machine.listening).toEqual(['127.0.0.1|40001', '::1|40001']);
    expect(lines).toEqual([]);
  });

  it('port 0: when ::1 holds the port 127.0.0.1 got, it takes another free port for both', async () => {
    const { machine, logger } = setUp({ freePorts: [40001, 40002], taken: new Set(['::1|40001']) });
    const bound = await listenAll(() => fakeServer(machine), '127.0.0.1', 0, logger);
    expect(bound.port).toBe(40002);
    expect(machine.listening).toEqual(['127.0.0.1|40002', '::1|40002']);
  });

  it('port 0: gives up after 5 ports all held on the other family, and listens on none', async () => {
    const held = [40001, 40002, 40003, 40004, 40005].map((port) => `::1|${port}`);
    const { machine, logger } = setUp({
      freePorts: [40001, 40002, 40003, 40004, 40005, 40006],
      taken: new Set(held),
    });
    await expect(listenAll(() => fakeServer(machine), '127.0.0.1', 0, logger)).rejects.toMatchObject({
      code: 'EADDRINUSE',
      address: '::1',
      port: 40005,
    });
    expect(machine.listening).toEqual([]);
  });

  it('a given port whose other loopback address is taken: refuses to start, and closes the first', async () => {
    const { machine, logger } = setUp({ taken: new Set(['::1|8808']) });
    await expect(listenAll(() => fakeServer(machine), '127.0.0.1', 8808, logger)).rejects.toMatchObject({
      code: 'EADDRINUSE',
      address: '::1',
      port: 8808,
    });
    expect(machine.listening).toEqual([]);
  });

  it('a machine without ::1: listens on 127.0.0.1 only, with one line', async () => {
    const { machine, lines, logger } = setUp({ missing: new Set(['::1']) });
    const bound = await listenAll(() => fakeServer(machine), 'localhost', 8808, logger);
    expect(bound.servers).toHaveLength(1);
    expect(machine.listening).toEqual(['127.0.0.1|8808']);
    expect(lines).toEqual(['info: this machine has no loopback address [::1]: listening on 127.0.0.1 only']);
  });
});
