/**
 * `npm run demo`: a 2025-11-25 client (the `@modelcontextprotocol/sdk` 1.x `Client`, the same
 * family as VS Code's) drives the built bridge in front of the 2026-07-28-only fixture server,
 * and prints a short transcript.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bridge = `${root}dist/bin/mcp-bridge-vscode.js`;
const fixture = `${root}dist/test/fixtures/fixtureServer.js`;

const say = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

const firstText = (result: unknown): string => {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((block) => block.type === 'text')?.text ?? '(no text)';
};

async function main(): Promise<void> {
  say('mcp-bridge-vscode demo: a 2025-11-25 client → the bridge → a 2026-07-28-only server\n');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bridge, '--', process.execPath, fixture],
    stderr: 'ignore',
  });
  const client = new Client(
    { name: 'demo-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    say(`  ← the server asks the user: "${request.params.message}" (answered: Ada, 36)`);
    return { action: 'accept', content: { name: 'Ada', age: 36, subscribe: true, color: 'red' } };
  });

  await client.connect(transport);
  const info = client.getServerVersion();
  const capabilities = Object.keys(client.getServerCapabilities() ?? {}).join(', ');
  say(`initialize    → server "${info?.name}" ${info?.version}; capabilities: ${capabilities}`);
  const tools = await client.listTools();
  say(
    `tools/list    → ${tools.tools.length} tools: ${tools.tools
      .slice(0, 6)
      .map((t) => t.name)
      .join(', ')}, …`,
  );
  say(
    `tools/call    → echo: ${firstText(await client.callTool({ name: 'echo', arguments: { text: 'hello' } }))}`,
  );
  say(
    `tools/call    → add 2+3: ${firstText(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))}`,
  );
  say('tools/call    → ask_form (the server needs input: a multi round-trip request)');
  say(`                 ${firstText(await client.callTool({ name: 'ask_form', arguments: {} }))}`);
  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  const message = prompt.messages[0]?.content;
  say(`prompts/get   → greet: ${message !== undefined && message.type === 'text' ? message.text : '?'}`);
  const resource = await client.readResource({ uri: 'file:///fixture/notes.txt' });
  const contents = resource.contents[0];
  say(`resources/read → notes: ${contents !== undefined && 'text' in contents ? contents.text : '?'}`);
  await client.close();
  say('\nThe same client against the fixture directly fails: it speaks only 2026-07-28.');
  const direct = new Client({ name: 'demo-client', version: '1.0.0' });
  try {
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: 'ignore' }),
    );
    say('  (unexpected: the direct connection worked)');
    await direct.close();
  } catch (error) {
    say(`  direct initialize → ${error instanceof Error ? error.message : String(error)}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
