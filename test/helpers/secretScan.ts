/**
 * The secret scan of process tests (docs/logging.md#logging-line-format, docs/security.md#security-rules
 * item 10, §11 item 28): a test puts markers where secrets live (a token, a header value, a key in
 * the query of the upstream URL, a redirect code, a form answer, a frame's contents) and checks
 * that none of them reaches a place it must not reach.
 *
 *   expectNoSecrets(peer, ['token-4f2a', 'form-answer-9c1d']);            // stderr and stdout
 *   expectNoSecrets(peer, [MARKER], { streams: ['stderr'] });            // stdout may echo it
 *
 * Each marker is also searched in the encodings a leak could take: JSON string escaping, URL
 * encoding (both `%20` and `+` spaces), base64 and base64url, and case-insensitively.
 */
import { expect } from 'vitest';
import type { RawPeer } from './rawPeer.js';

export type Stream = 'stderr' | 'stdout';

export interface SecretScanOptions {
  /** Which streams must be free of the markers. Default both. */
  readonly streams?: readonly Stream[];
  /** Only lines that pass this filter are scanned (for example the bridge's own stderr lines). */
  readonly lines?: (line: string) => boolean;
}

export interface SecretFinding {
  readonly stream: Stream;
  /** 1-based line number in that stream. */
  readonly line: number;
  readonly marker: string;
  /** How the marker appeared: `plain`, `json`, `url`, `base64`… */
  readonly encoding: string;
}

/** The forms a marker may take in a leak; the shortest ones (under 4 characters) are skipped. */
export function markerForms(marker: string): { encoding: string; text: string }[] {
  const forms = [
    { encoding: 'plain', text: marker },
    { encoding: 'json', text: JSON.stringify(marker).slice(1, -1) },
    { encoding: 'url', text: encodeURIComponent(marker) },
    { encoding: 'form-url', text: encodeURIComponent(marker).replace(/%20/g, '+') },
    { encoding: 'base64', text: Buffer.from(marker).toString('base64').replace(/=+$/, '') },
    { encoding: 'base64url', text: Buffer.from(marker).toString('base64url') },
  ];
  const seen = new Set<string>();
  return forms.filter(({ text }) => {
    const key = text.toLowerCase();
    if (text.length < 4 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Every place where a marker (in any of its forms) appears in the recorded output of a peer. */
export function findSecrets(
  peer: Pick<RawPeer, 'lines' | 'stderr'>,
  markers: readonly string[],
  options: SecretScanOptions = {},
): SecretFinding[] {
  const streams = options.streams ?? ['stderr', 'stdout'];
  const keep = options.lines ?? (() => true);
  const findings: SecretFinding[] = [];
  for (const stream of streams) {
    const lines = stream === 'stderr' ? peer.stderr : peer.lines;
    lines.forEach((text, index) => {
      if (!keep(text)) return;
      const lower = text.toLowerCase();
      for (const marker of markers) {
        const form = markerForms(marker).find((candidate) => lower.includes(candidate.text.toLowerCase()));
        if (form !== undefined) findings.push({ stream, line: index + 1, marker, encoding: form.encoding });
      }
    });
  }
  return findings;
}

/**
 * Fails the test when a marker appears. The failure names the stream, the line number, the marker
 * and its encoding, never the line itself (a failing run must not print the secret again).
 */
export function expectNoSecrets(
  peer: Pick<RawPeer, 'lines' | 'stderr'>,
  markers: readonly string[],
  options: SecretScanOptions = {},
): void {
  const findings = findSecrets(peer, markers, options).map(
    ({ stream, line, marker, encoding }) => `${stream} line ${line}: marker ${marker} (${encoding})`,
  );
  if (findings.length > 0) {
    expect.fail(`secrets in the output of the process:\n  ${findings.join('\n  ')}`);
  }
}
