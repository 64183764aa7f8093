/** Shared pieces of the token store tests: a recording logger, records, temporary directories. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Logger, LogLevel } from '../../src/ports/logger.js';
import type { KeyringModule } from '../../src/oauth/store/keychainStore.js';
import type { TokenRecord } from '../../src/oauth/store/types.js';

export interface RecordingLogger extends Logger {
  readonly lines: string[];
}

export function recordingLogger(): RecordingLogger {
  const lines: string[] = [];
  return {
    lines,
    enabled: () => true,
    log: (scope: string, level: LogLevel, text: string) => {
      lines.push(`${scope}: ${level}: ${text}`);
    },
  };
}

export const KEY_A = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
export const KEY_B = 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100';

export const SERVER_URL = 'https://mcp.example.test/mcp?api_key=url-secret-31d7';

export function makeRecord(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    version: 1,
    url: SERVER_URL,
    identity: 'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback',
    issuer: 'https://as.example.test',
    resource: 'https://mcp.example.test/mcp',
    client: { clientId: 'client-1', source: 'dynamic', authMethod: 'none' },
    accessToken: 'access-token-9f3b2c',
    tokenType: 'Bearer',
    expiresAt: 1_900_000_000_000,
    refreshToken: 'refresh-token-7e41aa',
    scope: 'mcp',
    savedAt: 1_000,
    ...overrides,
  };
}

/** A fresh temporary directory and its removal. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mcp-bridge-store-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** What a fake keyring does: `fail` makes every call after the probe reject; `absent` fails the probe. */
export interface FakeKeyring {
  readonly module: () => Promise<KeyringModule>;
  readonly secrets: Map<string, string>;
  fail: boolean;
  calls: number;
}

export function fakeKeyring(state: { absent?: string; maxChars?: number } = {}): FakeKeyring {
  const secrets = new Map<string, string>();
  const fake: FakeKeyring = {
    secrets,
    fail: false,
    calls: 0,
    module: () =>
      Promise.resolve({
        AsyncEntry: class {
          constructor(
            private readonly service: string,
            private readonly account: string,
          ) {
            if (state.absent !== undefined) throw new Error(state.absent);
          }
          private check(): void {
            fake.calls += 1;
            if (fake.fail) throw new Error('the keychain is locked');
          }
          getPassword(): Promise<string | null> {
            return Promise.resolve().then(() => {
              if (this.account !== 'probe') this.check();
              return secrets.get(`${this.service}/${this.account}`) ?? null;
            });
          }
          setPassword(password: string): Promise<void> {
            return Promise.resolve().then(() => {
              this.check();
              if (password.length > (state.maxChars ?? Infinity)) throw new Error('the password is too long');
              secrets.set(`${this.service}/${this.account}`, password);
            });
          }
          deleteCredential(): Promise<boolean> {
            return Promise.resolve().then(() => {
              this.check();
              return secrets.delete(`${this.service}/${this.account}`);
            });
          }
        },
        findCredentialsAsync: (service: string) =>
          Promise.resolve().then(() => {
            if (fake.fail) throw new Error('the keychain is locked');
            return [...secrets.entries()]
              .filter(([name]) => name.startsWith(`${service}/`))
              .map(([name, password]) => ({ account: name.slice(service.length + 1), password }));
          }),
      }),
  };
  return fake;
}

/** The temporary place of one test: its folder, the `tokens` folder in it, a recording logger. */
export interface TokenPlace {
  readonly root: string;
  readonly dir: string;
  readonly logger: RecordingLogger;
}

/**
 * A new TokenPlace before each test of the file, given to `set`, and its folder removed after the
 * test: call once at the top of a test file.
 */
export function useTokenPlace(set: (place: TokenPlace) => void): void {
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const made = await tempDir();
    cleanup = made.cleanup;
    set({ root: made.dir, dir: path.join(made.dir, 'tokens'), logger: recordingLogger() });
  });
  afterEach(() => cleanup?.());
}
