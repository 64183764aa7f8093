import { describe, expect, it } from 'vitest';
import { childSharingKeyHash, isPerProcessVariable } from '../../src/node/sharedKey.js';

describe('childSharingKeyHash', () => {
  const argv = ['node', 'server.js'];

  it('is the same for entries that differ only in VSCODE_PID, TERM or MCP_BRIDGE_SHARED', () => {
    const a = childSharingKeyHash(argv, '/w', { PATH: '/bin', VSCODE_PID: '1', TERM: 'xterm' });
    const b = childSharingKeyHash(argv, '/w', { PATH: '/bin', VSCODE_PID: '2', MCP_BRIDGE_SHARED: '1' });
    expect(a).toBe(b);
  });

  it('differs for entries that differ in a token variable, the cwd or the argv', () => {
    const base = childSharingKeyHash(argv, '/w', { API_TOKEN: 'one' });
    expect(childSharingKeyHash(argv, '/w', { API_TOKEN: 'two' })).not.toBe(base);
    expect(childSharingKeyHash(argv, '/v', { API_TOKEN: 'one' })).not.toBe(base);
    expect(childSharingKeyHash(['node', 'other.js'], '/w', { API_TOKEN: 'one' })).not.toBe(base);
  });

  it('differs for entries that differ in an OTEL_ variable: the telemetry of a key is one (docs/shared.md#shared-telemetry)', () => {
    const base = childSharingKeyHash(argv, '/w', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
    expect(childSharingKeyHash(argv, '/w', {})).not.toBe(base);
    expect(
      childSharingKeyHash(argv, '/w', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4319' }),
    ).not.toBe(base);
    expect(
      childSharingKeyHash(argv, '/w', {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_SERVICE_NAME: 'b',
      }),
    ).not.toBe(base);
  });

  it('does not depend on the order of the environment', () => {
    expect(childSharingKeyHash(argv, '/w', { A: '1', B: '2' })).toBe(
      childSharingKeyHash(argv, '/w', { B: '2', A: '1' }),
    );
  });

  it('is a sha256 in hex, with no value of the environment in it', () => {
    expect(childSharingKeyHash(argv, '/w', { API_TOKEN: 'secret-value' })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('isPerProcessVariable', () => {
  it('leaves out per-process names and prefixes, and keeps the others', () => {
    expect(
      [
        'VSCODE_PID',
        'ELECTRON_RUN_AS_NODE',
        'TERM_PROGRAM',
        'TMUX_PANE',
        'SHLVL',
        '_',
        'CLAUDE_CODE_SESSION_ID',
        'CLAUDE_CODE_SSE_PORT',
      ].map(isPerProcessVariable),
    ).toEqual([true, true, true, true, true, true, true, true]);
    expect(
      ['PATH', 'HOME', 'API_TOKEN', 'GITHUB_TOKEN', 'CLAUDE_CODE_ENTRYPOINT'].map(isPerProcessVariable),
    ).toEqual([false, false, false, false, false]);
  });
});
