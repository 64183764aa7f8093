/**
 * The secret scan helper itself (test/helpers/secretScan.ts): it must find a marker in every
 * encoding a leak could take, or the process tests that use it prove nothing.
 */
import { describe, expect, it } from 'vitest';
import { expectNoSecrets, findSecrets, markerForms } from '../helpers/secretScan.js';

const MARKER = 'tok en/"4f2a"+x';
const peer = (stderr: string[], lines: string[] = []) => ({ stderr, lines });

describe('secret scan', () => {
  it.each(markerForms(MARKER).map(({ encoding, text }) => [encoding, text]))(
    'finds the marker %s encoded',
    (encoding, text) => {
      const findings = findSecrets(peer([`mcp-bridge-vscode: bridge: info: x ${text} y`]), [MARKER]);
      expect(findings).toEqual([{ stream: 'stderr', line: 1, marker: MARKER, encoding }]);
    },
  );

  it('finds a marker in another case and on stdout', () => {
    const findings = findSecrets(
      peer([], ['{"a":1}', `{"b":"${MARKER.toUpperCase().replace(/"/g, '\\"')}"}`]),
      [MARKER],
    );
    expect(findings).toEqual([{ stream: 'stdout', line: 2, marker: MARKER, encoding: 'json' }]);
  });

  it('scans only the streams and lines it is given', () => {
    const output = peer([`bridge-fixture-server: ${MARKER}`], [MARKER]);
    expect(
      findSecrets(output, [MARKER], { streams: ['stderr'], lines: (line) => line.startsWith('mcp-') }),
    ).toEqual([]);
    expect(findSecrets(output, [MARKER], { streams: ['stdout'] })).toHaveLength(1);
  });

  it('passes clean output and fails without printing the line', () => {
    expectNoSecrets(peer(['mcp-bridge-vscode: bridge: info: fine'], ['{}']), [MARKER]);
    expect(() => expectNoSecrets(peer([`secret line ${MARKER}`]), [MARKER])).toThrow(/stderr line 1: marker/);
    expect(() => expectNoSecrets(peer([`secret line ${MARKER}`]), [MARKER])).not.toThrow(/secret line/);
  });
});
