/**
 * The package version for `--version` and the bridge's `serverInfo.version`.
 *
 * The bundle (scripts/bundle.ts) writes it in as `MCP_BRIDGE_VERSION`, since the bundled file does
 * not sit where a relative path to `package.json` would find it. Unbundled (`dist/src/cli`, or the
 * sources under vitest), it is read from the package's own `package.json`, found by name so that
 * a wrong folder never yields another package's version.
 */
import { readFileSync } from 'node:fs';

declare const MCP_BRIDGE_VERSION: string | undefined;

const PACKAGE_NAME = 'mcp-bridge-sdk';
/** From `dist/src/cli/version.js` and from `src/cli/version.ts`. */
const CANDIDATES = ['../../../package.json', '../../package.json'];

export function packageVersion(): string {
  // `typeof` of an undeclared name is 'undefined' rather than a ReferenceError.
  if (typeof MCP_BRIDGE_VERSION === 'string') return MCP_BRIDGE_VERSION;
  for (const candidate of CANDIDATES) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // Not there, or not JSON: try the next place.
    }
  }
  return '0.0.0';
}
