/**
 * The README's install paths and compatibility table say what the package and CI do.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, manifest } from './support.js';

const readme = readFileSync(`${ROOT}README.md`, 'utf8');
const installed = (name: string): string =>
  (JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')) as { version: string })
    .version;
const majorMinor = (version: string): string => version.split('.').slice(0, 2).join('.');

describe('README', () => {
  it('shows the three install paths with the package and executable names of package.json', () => {
    const pkg = manifest();
    const [bin] = Object.keys(pkg.bin ?? {});
    expect(bin).toBe('mcp-bridge-vscode');
    expect(readme).toContain(`"args": ["-y", "-p", "${pkg.name}", "${bin}", "--",`);
    expect(readme).toContain(`npm install -g ${pkg.name}`);
    expect(readme).toContain('**From a clone:**');
  });

  it('names the SDK versions the tests run with and the Node versions of the CI matrix', () => {
    expect(readme).toContain(
      `\`@modelcontextprotocol/sdk\` ${majorMinor(installed('@modelcontextprotocol/sdk'))} (`,
    );
    expect(readme).toContain(
      `\`@modelcontextprotocol/server\` ${majorMinor(installed('@modelcontextprotocol/server'))} and`,
    );
    const ci = readFileSync(`${ROOT}.github/workflows/ci.yml`, 'utf8');
    expect(ci).toContain("node: ['20', '22', '24']");
    expect(readme).toMatch(/\| Node\.js +\| 20 \(and the oldest accepted, 20\.19\.0\), 22, 24 +\|/);
    expect(ci).toContain("node-version: '20.19.0'");
    expect(manifest().engines?.node).toBe('>=20.19');
  });
});
