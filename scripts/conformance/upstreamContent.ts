/**
 * The resources and prompts of the conformance upstream (upstream.ts), with the URIs and names
 * the server scenarios of `@modelcontextprotocol/conformance` read.
 */
import { ResourceTemplate, completable, fromJsonSchema } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { PNG } from './upstreamTools.js';

const user = (text: string) => ({ role: 'user' as const, content: { type: 'text' as const, text } });

/**
 * The arguments of `test_prompt_with_arguments`, `arg1` completable (the completion-complete
 * scenario asks for it). The SDK completes a prompt argument only through `argsSchema.shape`,
 * which a JSON schema lacks; it is added here.
 */
function twoArguments() {
  const schema = fromJsonSchema<{ arg1: string; arg2: string }>({
    type: 'object',
    properties: { arg1: { type: 'string' }, arg2: { type: 'string' } },
    required: ['arg1', 'arg2'],
  });
  const arg1 = completable(fromJsonSchema<string>({ type: 'string' }), (value) =>
    ['test-one', 'test-two'].filter((option) => option.startsWith(value)),
  );
  return Object.assign(schema, { shape: { arg1 } });
}

export function registerConformanceContent(server: McpServer): void {
  server.registerResource('static-text', 'test://static-text', { mimeType: 'text/plain' }, (uri) => ({
    contents: [
      { uri: uri.href, mimeType: 'text/plain', text: 'The static text of the conformance upstream.' },
    ],
  }));
  server.registerResource('static-binary', 'test://static-binary', { mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }],
  }));
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { mimeType: 'text/plain' },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched.' }],
    }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { mimeType: 'application/json' },
    (uri, { id }) => ({
      contents: [
        { uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true }) },
      ],
    }),
  );

  server.registerPrompt('test_simple_prompt', { description: 'No arguments.' }, () => ({
    messages: [user('A simple prompt of the conformance upstream.')],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'Two arguments.',
      argsSchema: twoArguments(),
    },
    ({ arg1, arg2 }) => ({ messages: [user(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)] }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'An embedded resource.',
      argsSchema: fromJsonSchema<{ resourceUri: string }>({
        type: 'object',
        properties: { resourceUri: { type: 'string' } },
        required: ['resourceUri'],
      }),
    },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded.' },
          },
        },
        user('Read the resource above.'),
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { description: 'An image.' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      user('Look at it.'),
    ],
  }));
}
