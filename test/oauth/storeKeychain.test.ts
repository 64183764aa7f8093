/**
 * The keychain store against the real keychain of the host ("a test runs
 * where a secret service is available and is skipped with a logged reason where none is"). The
 * CI jobs on macOS and Windows run the first two tests; a headless Linux runs the last one.
 *
 * `it.skipIf(...)` here is the one conditional skip the project allows: whether the host has a
 * keychain is a fact of the machine: on each host either the keychain tests or the fall-through test run.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runLogout } from '../../src/cli/logout.js';
import { createIndexedStore } from '../../src/oauth/store/index.js';
import { openKeychainBackend } from '../../src/oauth/store/keychainStore.js';
import { openTokenStore } from '../../src/oauth/store/openStore.js';
import { makeRecord, recordingLogger, tempDir } from './storeTestKit.js';

// A service of its own per run, so a test never touches a real sign-in.
const SERVICE = `mcp-bridge-sdk/test-${randomBytes(4).toString('hex')}`;

const probe = await openKeychainBackend({ service: SERVICE, platform: process.platform }).then(
  () => ({ available: true, reason: '' }),
  (error: unknown) => ({ available: false, reason: error instanceof Error ? error.message : String(error) }),
);
if (!probe.available)
  console.log(`keychain tests: no keychain on this host, the real-keychain test is skipped: ${probe.reason}`);

describe('keychain store (real keychain)', () => {
  it.skipIf(!probe.available)(
    'writes, reads, lists and deletes a record in the keychain of the host',
    async () => {
      const logger = recordingLogger();
      const store = createIndexedStore(
        await openKeychainBackend({ service: SERVICE, platform: process.platform }),
        logger,
      );
      try {
        await store.write(makeRecord());
        expect((await store.read(makeRecord()))?.refreshToken).toBe('refresh-token-7e41aa');
        expect(await store.list()).toEqual([{ url: makeRecord().url, identity: makeRecord().identity }]);
        expect(await store.delete(makeRecord())).toBe(true);
        expect(await store.read(makeRecord())).toBeUndefined();
      } finally {
        await store.clear();
      }
    },
  );

  it.skipIf(!probe.available)('auto picks the keychain, and logout deletes the sign-in from it', async () => {
    const logger = recordingLogger();
    const { dir, cleanup } = await tempDir();
    const bridgeName = `test-${SERVICE.slice(-8)}`;
    const service = `mcp-bridge-sdk/${bridgeName}`;
    try {
      const opened = await openTokenStore({ tokenStore: 'auto', env: {}, service, directory: dir }, logger);
      if (!opened.ok) throw new Error(opened.message);
      expect(opened.store.kind).toBe('keychain');
      const record = makeRecord({ identity: `${bridgeName}|default|http://127.0.0.1:41894/callback` });
      await opened.store.write(record);
      const options = {
        url: record.url,
        all: false,
        account: 'default',
        redirectPort: 41894,
        noRevoke: true,
        logLevel: 'info' as const,
      };
      const code = await runLogout({ ...options, tokenStore: 'keychain', bridgeName }, logger, {
        env: {},
        directory: dir,
      });
      expect(code).toBe(0);
      expect(await opened.store.read(record)).toBeUndefined();
      expect(logger.lines.at(-1)).toBe(
        'vscode: info: logout deleted the stored sign-in of the account "default". The next start signs in again',
      );
    } finally {
      await cleanup();
    }
  });

  it.skipIf(probe.available)(
    'without a keychain, auto falls through to memory at once, with the reason',
    async () => {
      const logger = recordingLogger();
      const { dir, cleanup } = await tempDir();
      try {
        const opened = await openTokenStore(
          { tokenStore: 'auto', env: {}, service: SERVICE, directory: dir },
          logger,
        );
        expect(opened.ok && opened.store.kind).toBe('memory');
        expect(logger.lines).toEqual([
          `tokens: info: the tokens stay in memory: the keychain is not available (${probe.reason}), and no token key is set (MCP_BRIDGE_TOKEN_KEY or --token-key-file). Each start needs a new sign-in`,
        ]);
      } finally {
        await cleanup();
      }
    },
  );
});
