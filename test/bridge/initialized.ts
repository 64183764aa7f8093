/**
 * What an initialize decided, for the tests that make a session ready without an upstream
 * (docs/architecture.md#architecture-state): VS Code as the client, a fake upstream, tools only.
 */
import type { Initialized } from '../../src/bridge/session.js';
import type { ClientRevision } from '../../src/codec/revisions.js';
import { createFakeUpstream } from '../../src/testing/index.js';

export function decided(revision: ClientRevision): Initialized {
  return {
    client: { info: { name: 'vscode', version: '1.99' }, capabilities: {}, upstreamCapabilities: {} },
    revision,
    upstream: createFakeUpstream().connection,
    declared: { tools: true, prompts: false, resources: false, subscribe: false },
  };
}
