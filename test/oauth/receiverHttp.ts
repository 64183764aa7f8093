/**
 * Raw HTTP/1.1 over a TCP socket for the receiver tests: the tests see the exact status line and
 * header lines the receiver sends (no client library adds or hides anything), and can send heads
 * that a client library would refuse to send (huge, slow, wrong host).
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Logger, LogLevel } from '../../src/ports/logger.js';

export interface RawResponse {
  readonly status: number;
  /** Header lines as sent, in order (`Name: value`). */
  readonly headerLines: readonly string[];
  readonly body: string;
}

/** Opens a connection to 127.0.0.1:port and resolves once it is connected. */
export function open(port: number, host = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection, and whether a reset ended it. */
export function readAll(socket: Socket): Promise<{ text: string; reset: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let reset = false;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => (reset = true));
    socket.once('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), reset }));
  });
}

export function parseResponse(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head (${text.length} bytes)`);
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? NaN);
  return { status, headerLines, body: text.slice(end + 4) };
}

/** Sends one raw request head and reads the response up to the close of the connection. */
export async function rawRequest(port: number, head: string): Promise<RawResponse> {
  const socket = await open(port);
  const all = readAll(socket);
  socket.write(head);
  return parseResponse((await all).text);
}

/** GET `path` with the Host header a browser sends for the redirect URI. */
export const get = (port: number, path: string, method = 'GET'): Promise<RawResponse> =>
  rawRequest(port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUser-Agent: test\r\n\r\n`);

/** A logger that records `level: text` lines, for exact log assertions and the secret scan. */
export function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    log: (scope: string, level: LogLevel, text: string) => lines.push(`${scope}: ${level}: ${text}`),
    enabled: () => true,
  };
}

/** The path and query of a URL given as a string. */
export const pathOf = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};
