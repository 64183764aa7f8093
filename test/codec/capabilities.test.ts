import { describe, expect, it } from 'vitest';
import { toLegacyServerCapabilities, toUpstreamClientCapabilities } from '../../src/codec/capabilities.js';
import { validateDefinition } from '../helpers/schemas.js';

describe('toUpstreamClientCapabilities', () => {
  it('maps the capabilities of VS Code (sampling, elicitation form and url, no roots)', () => {
    const vscode = {
      sampling: {},
      elicitation: { form: {}, url: {} },
      tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } },
    };
    const upstream = toUpstreamClientCapabilities(vscode);
    expect(upstream).toEqual({ sampling: {}, elicitation: { form: {}, url: {} } });
    expect(validateDefinition('2026-07-28', 'ClientCapabilities', upstream)).toEqual([]);
  });

  it('keeps only the declared elicitation modes, and {} stays {} (form only)', () => {
    expect(toUpstreamClientCapabilities({ elicitation: { url: {}, other: {} } })).toEqual({
      elicitation: { url: {} },
    });
    expect(toUpstreamClientCapabilities({ elicitation: {} })).toEqual({ elicitation: {} });
    expect(toUpstreamClientCapabilities({ elicitation: { form: true } })).toEqual({ elicitation: {} });
  });

  it('declares sampling tools and context only when the client declared them as objects', () => {
    expect(toUpstreamClientCapabilities({ sampling: { tools: {}, context: {} } })).toEqual({
      sampling: { tools: {}, context: {} },
    });
    expect(toUpstreamClientCapabilities({ sampling: { tools: true, context: 'x' } })).toEqual({
      sampling: {},
    });
  });

  it('declares roots as {} without listChanged', () => {
    expect(toUpstreamClientCapabilities({ roots: { listChanged: true } })).toEqual({ roots: {} });
  });

  it('keeps roots.listChanged with rootsListChanged (the generic profile), only when literally true', () => {
    expect(toUpstreamClientCapabilities({ roots: { listChanged: true } }, true)).toEqual({
      roots: { listChanged: true },
    });
    expect(toUpstreamClientCapabilities({ roots: { listChanged: 'yes' } }, true)).toEqual({ roots: {} });
    expect(toUpstreamClientCapabilities({ roots: {} }, true)).toEqual({ roots: {} });
    expect(toUpstreamClientCapabilities({}, true)).toEqual({});
  });

  it('keeps object entries of experimental and extensions, never the tasks extension', () => {
    expect(
      toUpstreamClientCapabilities({
        experimental: { a: {}, b: 1 },
        extensions: {
          'io.modelcontextprotocol/ui': { mimeTypes: ['text/html'] },
          'io.modelcontextprotocol/tasks': {},
        },
      }),
    ).toEqual({
      experimental: { a: {} },
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html'] } },
    });
  });

  it('drops members that are not valid or not known, and never declares tasks', () => {
    expect(toUpstreamClientCapabilities({ sampling: true, roots: [], tasks: {}, unknown: {} })).toEqual({});
    expect(toUpstreamClientCapabilities(null)).toEqual({});
  });
});

describe('toLegacyServerCapabilities', () => {
  it('copies list flags only when they are literally true', () => {
    expect(
      toLegacyServerCapabilities({
        tools: { listChanged: true },
        prompts: { listChanged: 'true' },
        resources: { subscribe: 1, listChanged: true },
      }),
    ).toEqual({ tools: { listChanged: true }, prompts: {}, resources: { listChanged: true } });
  });

  it('declares logging and completions only as objects', () => {
    expect(toLegacyServerCapabilities({ logging: {}, completions: { x: 1 } })).toEqual({
      logging: {},
      completions: {},
    });
    expect(toLegacyServerCapabilities({ logging: true, completions: null })).toEqual({});
  });

  it('copies experimental and extensions without the tasks extension, and never declares tasks', () => {
    const legacy = toLegacyServerCapabilities({
      tasks: { list: {} },
      experimental: { x: { y: 1 } },
      extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/ui': {} },
    });
    expect(legacy).toEqual({
      experimental: { x: { y: 1 } },
      extensions: { 'io.modelcontextprotocol/ui': {} },
    });
    expect(validateDefinition('2025-11-25', 'ServerCapabilities', legacy)).toEqual([]);
  });

  it('gives {} for a value that is not an object', () => {
    expect(toLegacyServerCapabilities('x')).toEqual({});
  });
});
