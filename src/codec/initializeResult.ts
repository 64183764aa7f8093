/**
 * The `initialize` result for the client, built from the upstream `server/discover` result
 * (docs/lifecycle.md#lifecycle-initialize-result, docs/lifecycle.md#lifecycle-discover). None of the 2026-07-28 members (`resultType`, `ttlMs`,
 * `cacheScope`, `supportedVersions`, `_meta`) reaches the client.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { toLegacyServerCapabilities } from './capabilities.js';
import { keepDataIcons } from './icons.js';
import { META_SERVER_INFO } from '../protocol/metaKey.js';
import { LEGACY_PROTOCOL_VERSION } from './meta.js';

export interface InitializeResultOptions {
  /** The `serverInfo.name` when the upstream sends no valid serverInfo (fallbackServerName). */
  readonly fallbackName: string;
  /** The version of the bridge, for the fallback serverInfo. */
  readonly bridgeVersion: string;
  /** True for an HTTP upstream: icons keep only `data:` URIs (docs/results.md#results-icons). */
  readonly remote: boolean;
}

/** The name of the product, the last fallback of a server name (docs/lifecycle.md#lifecycle-initialize-result). */
export const PROFILE_NAME = 'mcp-bridge-vscode';

const STRING_MEMBERS = ['title', 'description', 'websiteUrl'] as const;

export function buildInitializeResult(discover: JsonObject, opts: InitializeResultOptions): JsonObject {
  const out: JsonObject = {
    protocolVersion: LEGACY_PROTOCOL_VERSION,
    capabilities: toLegacyServerCapabilities(discover['capabilities']),
    serverInfo: serverInfo(discover, opts),
  };
  const { instructions } = discover;
  if (typeof instructions === 'string') out['instructions'] = instructions;
  return out;
}

/**
 * The upstream Implementation from `_meta["io.modelcontextprotocol/serverInfo"]`, when it is
 * valid (string `name` not empty, string `version`), reduced to the members of a 2025-11-25
 * Implementation; otherwise `{name: fallback, version: bridge version}`.
 */
function serverInfo(discover: JsonObject, opts: InitializeResultOptions): JsonObject {
  const meta = discover['_meta'];
  const info = isObject(meta) ? meta[META_SERVER_INFO] : undefined;
  if (
    !isObject(info) ||
    typeof info['name'] !== 'string' ||
    info['name'] === '' ||
    typeof info['version'] !== 'string'
  ) {
    return { name: nonEmpty(opts.fallbackName) ?? PROFILE_NAME, version: opts.bridgeVersion };
  }
  const out: JsonObject = { name: info['name'], version: info['version'] };
  for (const key of STRING_MEMBERS) {
    const value = info[key];
    if (typeof value === 'string') out[key] = value;
  }
  const icons = info['icons'];
  if (Array.isArray(icons)) {
    // Only icons with a string `src` are valid Icon objects of 2025-11-25.
    const valid = icons.filter((icon) => isObject(icon) && typeof icon['src'] === 'string');
    if (valid.length > 0) out['icons'] = valid;
  }
  return opts.remote ? keepDataIcons(out) : out;
}

/**
 * The `serverInfo.name` when the upstream sends none (docs/lifecycle.md#lifecycle-initialize-result): `--name`,
 * else the file name of the upstream command without its extension (POSIX or Windows path),
 * else the host of the upstream URL, else the profile name. Never empty.
 */
export function fallbackServerName(opts: {
  readonly name?: string;
  readonly command?: string;
  readonly url?: string;
  readonly profileName: string;
}): string {
  return (
    nonEmpty(opts.name) ??
    nonEmpty(commandName(opts.command)) ??
    nonEmpty(urlHost(opts.url)) ??
    nonEmpty(opts.profileName) ??
    PROFILE_NAME
  );
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value !== undefined && value.trim() !== '' ? value : undefined;

/** `/opt/mcp/bin/files-server.exe` and `C:\mcp\files-server.exe` give `files-server`. */
function commandName(command: string | undefined): string | undefined {
  if (command === undefined) return undefined;
  const base = command.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  // A leading dot (`.venv`) is part of the name, not an extension.
  return dot > 0 ? base.slice(0, dot) : base;
}

function urlHost(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
