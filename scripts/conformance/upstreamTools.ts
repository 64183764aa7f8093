/**
 * The tools of the conformance upstream (upstream.ts): the names, contents and input rounds that
 * the server scenarios of `@modelcontextprotocol/conformance` call, written for revision
 * 2026-07-28. Every server-initiated request of the 2025 scenarios (elicitation, sampling) is an
 * input round here (`input_required`), which the bridge turns into the 2025-11-25 request and
 * its answer into the retry (docs/input-rounds.md#input-rounds).
 */
import { inputRequired, inputResponse } from '@modelcontextprotocol/server';
import type {
  CallToolResult,
  ElicitRequestFormParams,
  InputRequiredResult,
  McpServer,
  ServerContext,
} from '@modelcontextprotocol/server';
import { fromJsonSchema } from '@modelcontextprotocol/server';

/** A 1x1 PNG and a WAV of two samples: the smallest valid files of their types. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

type Answer = CallToolResult | InputRequiredResult;
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const none = fromJsonSchema<Record<string, never>>({ type: 'object', properties: {} });
const withString = (key: string) =>
  fromJsonSchema<Record<string, string>>({
    type: 'object',
    properties: { [key]: { type: 'string' } },
    required: [key],
  });

/** The schema the json-schema-2020-12 scenario wants listed unchanged. */
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

const DEFAULTS_FORM: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name', default: 'John Doe' },
    age: { type: 'integer', description: 'Age', default: 30 },
    score: { type: 'number', description: 'Score', default: 95.5 },
    status: {
      type: 'string',
      description: 'Status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verified', default: true },
  },
  required: [],
};

const ENUMS_FORM = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First' },
        { const: 'value2', title: 'Second' },
        { const: 'value3', title: 'Third' },
      ],
    },
    legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['One', 'Two', 'Three'] },
    untitledMulti: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'value1', title: 'First' },
          { const: 'value2', title: 'Second' },
          { const: 'value3', title: 'Third' },
        ],
      },
    },
  },
  required: [],
} as unknown as ElicitRequestFormParams['requestedSchema'];

/** One form round: asks `schema` under `message`, then answers with the action and content. */
function formTool(
  ctx: ServerContext,
  message: string,
  schema: ElicitRequestFormParams['requestedSchema'],
): Answer {
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'form');
  if (answer.kind !== 'elicit')
    return inputRequired({
      inputRequests: { form: inputRequired.elicit({ message, requestedSchema: schema }) },
    });
  return text(
    `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
  );
}

export function registerConformanceTools(server: McpServer): void {
  server.registerTool('test_simple_text', { description: 'Text content.' }, () =>
    text('A plain text answer of the conformance upstream.'),
  );
  server.registerTool('test_image_content', { description: 'Image content.' }, () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Audio content.' }, () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'An embedded resource.' }, () => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'Embedded.' },
      },
    ],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Text, image and resource.' }, () => ({
    content: [
      { type: 'text', text: 'Three kinds of content:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data"}',
        },
      },
    ],
  }));
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Logs three messages.', inputSchema: none },
    async (_a, ctx) => {
      for (const step of ['started', 'working', 'done'])
        await ctx.mcpReq.log('info', `Tool ${step}`, 'conformance');
      return text('Logged three messages.');
    },
  );
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress.', inputSchema: none },
    async (_a, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken === undefined) break;
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100, message: `Step ${progress} of 100` },
        });
      }
      return text(String(progressToken));
    },
  );
  server.registerTool('test_error_handling', { description: 'Fails.' }, () => {
    throw new Error('This tool fails on purpose.');
  });
  server.registerTool(
    'test_sampling',
    { description: 'Asks the client model.', inputSchema: withString('prompt') },
    ({ prompt }, ctx): Answer => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'model');
      if (answer.kind !== 'sampling') {
        const model = inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: prompt ?? '' } }],
          maxTokens: 100,
        });
        return inputRequired({ inputRequests: { model } });
      }
      const content = answer.result.content as { type?: string; text?: string };
      return text(`LLM response: ${content.type === 'text' ? (content.text ?? '') : 'no text'}`);
    },
  );
  server.registerTool(
    'test_elicitation',
    { description: 'Asks the user.', inputSchema: withString('message') },
    ({ message }, ctx) =>
      formTool(ctx, message ?? '', {
        type: 'object',
        properties: {
          username: { type: 'string', description: 'Your name' },
          email: { type: 'string', description: 'Your email address' },
        },
        required: ['username', 'email'],
      }),
  );
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'A form with defaults.', inputSchema: none },
    (_a, ctx) => formTool(ctx, 'Check the form and its defaults', DEFAULTS_FORM),
  );
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'A form with enums.', inputSchema: none },
    (_a, ctx) => formTool(ctx, 'Pick from the enums', ENUMS_FORM),
  );
  server.registerTool(
    'json_schema_2020_12_tool',
    { description: 'An input schema of JSON Schema 2020-12.', inputSchema: fromJsonSchema(SCHEMA_2020_12) },
    (args) => text(`Called with ${JSON.stringify(args)}`),
  );
}
