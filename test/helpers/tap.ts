/**
 * Schema validation of a whole transcript. A transcript test opts in by
 * putting the tap upstream (test/fixtures/tapUpstream.ts) in front of its upstream:
 *
 *   const tap = createTap();
 *   const peer = tap.attach(startBridge(tap.wrap({ upstream })));
 *   ... the session ...
 *   peer.closeStdin(); await peer.exit;
 *   const report = tap.check(peer); // or expectValidTranscript(tap, peer)
 *
 * Every frame the bridge writes to the client is checked against the 2025-11-25 schema (a result
 * by the method of the request it answers, notifications and server requests by their method)
 * and against the deny-list of 2026-07-28 members; every frame the bridge sends upstream is
 * checked against the 2026-07-28 schema. The report counts the frames checked per schema.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { FIXTURE } from './bridgeProcess.js';
import { parseFrame } from './rawPeer.js';
import type { Frame, RawPeer } from './rawPeer.js';
import {
  findModernLeaks,
  validateClientFrame,
  validateDefinition,
  validateLegacyFrame,
  validateModernRequest,
} from './schemas.js';
import type { ClientRevision } from './schemas.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const TAP_UPSTREAM = `${root}dist/test/fixtures/tapUpstream.js`;
export const TAP_FILE_VARIABLE = 'MCP_BRIDGE_TAP_FILE';
/** The only 2026-07-28 style key a client may see: the MCP Apps extension in the capabilities. */
const ALLOWED_LEAKS = ['/result/capabilities/extensions/io.modelcontextprotocol~1ui'];

export interface StartOptions {
  bridgeArgs?: string[];
  upstream?: string[];
  env?: NodeJS.ProcessEnv;
}

export interface TapReport {
  /** Frames the bridge wrote to the client, each checked against 2025-11-25 and the deny-list. */
  readonly toClient: number;
  /** Frames the bridge sent upstream, each checked against 2026-07-28. */
  readonly toUpstream: number;
  /** Checked frames by kind: `client result tools/call`, `upstream request tools/call`, … */
  readonly kinds: Readonly<Record<string, number>>;
  /** Every failed check, with the frame kind and the line number. */
  readonly problems: readonly string[];
}

export interface Tap {
  /** The file the tap upstream appends the upstream-bound lines to. */
  readonly file: string;
  /** startBridge options with the tap in front of `options.upstream` (default: the fixture). */
  wrap(options?: StartOptions): StartOptions;
  /** Records the requests the client sends, to check each result by its method. Returns the peer. */
  attach(peer: RawPeer): RawPeer;
  /**
   * Checks every frame so far in both directions. Call it after the bridge exited for all. The
   * client's frames are checked against the schema of `revision` (default 2025-11-25) and, for
   * an older one, its closed variant too (test/helpers/schemas.ts).
   */
  check(peer: RawPeer, revision?: ClientRevision): TapReport;
  /** The lines the bridge sent upstream so far, parsed. */
  upstreamFrames(): Frame[];
  /** Removes the tap file. */
  dispose(): void;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Errors of a frame the bridge sent upstream: requests and notifications of 2026-07-28. */
export function upstreamFrameProblems(frame: Frame): string[] {
  if (typeof frame['method'] !== 'string') return ['the bridge sent a response upstream'];
  if ('id' in frame) return validateModernRequest(frame);
  if (frame['method'] === 'notifications/cancelled') {
    return validateDefinition('2026-07-28', 'CancelledNotification', frame);
  }
  return [`the bridge sent the notification ${frame['method']} upstream`];
}

/**
 * Errors of a frame the bridge wrote to the client: the schema of 2025-11-25 and the deny-list.
 *
 * One deliberate difference is accepted: the error response to a line whose id cannot be
 * recovered has `"id": null` (JSON-RPC 2.0 and docs/lines.md#lines-bad-line), while the 2025-11-25
 * schema only knows an absent id. Such a frame is checked without its id.
 */
export function clientFrameProblems(
  frame: Frame,
  method?: string,
  revision: ClientRevision = '2025-11-25',
): string[] {
  const leaks = findModernLeaks(frame).filter((pointer) => !ALLOWED_LEAKS.includes(pointer));
  if (revision !== '2025-11-25') {
    // The older schemas need an id in every error: such a frame is checked with id 0.
    const checked = 'error' in frame && frame['id'] === null ? { ...frame, id: 0 } : frame;
    return [
      ...validateClientFrame(revision, checked, method),
      ...leaks.map((pointer) => `a 2026-07-28 member at ${pointer}`),
    ];
  }
  const checked = 'error' in frame && frame['id'] === null ? withoutId(frame) : frame;
  return [
    ...validateLegacyFrame(checked, 'toClient', method),
    ...leaks.map((pointer) => `a 2026-07-28 member at ${pointer}`),
  ];
}

const withoutId = ({ id: _id, ...rest }: Frame): Frame => rest;

const kindOf = (frame: Frame, method: string | undefined): string => {
  if (typeof frame['method'] === 'string') {
    return `${'id' in frame ? 'request' : 'notification'} ${frame['method']}`;
  }
  return `${'error' in frame ? 'error' : 'result'} ${method ?? '(unknown request)'}`;
};

export function createTap(): Tap {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-tap-'));
  const file = join(dir, 'upstream.jsonl');
  /** Methods of the client requests by JSON id (`1` and `"1"` differ); `null` when an id was reused. */
  const methods = new Map<string, string | null>();

  const readUpstream = (): string[] => {
    try {
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '');
    } catch {
      return [];
    }
  };

  return {
    file,
    wrap(options = {}) {
      const upstream = options.upstream ?? [process.execPath, FIXTURE];
      return {
        ...options,
        upstream: [process.execPath, TAP_UPSTREAM, '--', ...upstream],
        env: { ...(options.env ?? process.env), [TAP_FILE_VARIABLE]: file },
      };
    },
    attach(peer) {
      const send = peer.send.bind(peer);
      peer.send = (frame: unknown) => {
        const parsed = typeof frame === 'string' ? parseFrame(frame) : frame;
        if (isRecord(parsed) && typeof parsed['method'] === 'string' && 'id' in parsed) {
          const key = JSON.stringify(parsed['id']);
          methods.set(key, methods.has(key) ? null : parsed['method']);
        }
        send(frame);
      };
      return peer;
    },
    check(peer, revision = '2025-11-25') {
      const kinds: Record<string, number> = {};
      const problems: string[] = [];
      const count = (kind: string): void => void (kinds[kind] = (kinds[kind] ?? 0) + 1);
      let toClient = 0;
      peer.lines.forEach((line, index) => {
        const frame = parseFrame(line);
        if (frame === undefined) {
          problems.push(`client line ${index + 1} is not a JSON object: ${line.slice(0, 120)}`);
          return;
        }
        const method = methods.get(JSON.stringify(frame['id'])) ?? undefined;
        const kind = `client ${kindOf(frame, method)}`;
        count(kind);
        toClient += 1;
        for (const problem of clientFrameProblems(frame, method, revision)) {
          problems.push(`${kind} (client line ${index + 1}): ${problem}`);
        }
      });
      let toUpstream = 0;
      readUpstream().forEach((line, index) => {
        const frame = parseFrame(line);
        if (frame === undefined) {
          problems.push(`upstream line ${index + 1} is not a JSON object: ${line.slice(0, 120)}`);
          return;
        }
        const kind = `upstream ${kindOf(frame, undefined)}`;
        count(kind);
        toUpstream += 1;
        for (const problem of upstreamFrameProblems(frame)) {
          problems.push(`${kind} (upstream line ${index + 1}): ${problem}`);
        }
      });
      return { toClient, toUpstream, kinds, problems };
    },
    upstreamFrames() {
      return readUpstream().flatMap((line) => {
        const frame = parseFrame(line);
        return frame === undefined ? [] : [frame];
      });
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Asserts that every frame of the transcript passed its checks; returns the report. */
export function expectValidTranscript(tap: Tap, peer: RawPeer, revision?: ClientRevision): TapReport {
  const report = tap.check(peer, revision);
  expect(report.problems).toEqual([]);
  return report;
}
