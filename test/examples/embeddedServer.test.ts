/**
 * examples/embedded-server.ts runs in the suite: a server author's own
 * server through `serveDualEra`, reached by a 2025-11-25 client (the SDK 1.x Client, on the
 * bridge's front end) and by a 2026-07-28 client (the 2.x Client, on the server itself).
 * Needs `npm run build`.
 */
import { fileURLToPath } from 'node:url';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

const EXAMPLE = fileURLToPath(new URL('../../dist/examples/embedded-server.js', import.meta.url));

const textOf = (result: unknown): string | undefined =>
  (result as { content?: { type: string; text?: string }[] }).content?.find((block) => block.type === 'text')
    ?.text;

describe('examples/embedded-server.ts', () => {
  it('serves the 1.x Client on the legacy path: 2025-11-25, its tool, its name', async () => {
    const client = new Client({ name: 'legacy', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EXAMPLE], stderr: 'ignore' }),
    );
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'greeting-server', version: '1.0.0' });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet']);
      expect(textOf(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }))).toBe(
        'Hello, Ada!',
      );
    } finally {
      await client.close();
    }
  });

  it('serves the 2.x Client on the modern path: 2026-07-28', async () => {
    const client = new ModernClient(
      { name: 'modern', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new ModernStdio({ command: process.execPath, args: [EXAMPLE], stderr: 'ignore' }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(textOf(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }))).toBe(
        'Hello, Ada!',
      );
    } finally {
      await client.close();
    }
  });
});
