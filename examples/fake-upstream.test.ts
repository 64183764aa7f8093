/**
 * A product tests its chain against `createFakeUpstream` of `mcp-bridge-sdk/testing`: a scripted
 * in-memory 2026-07-28 server behind `createBridge`, no child process and no HTTP server. Imported
 * through the package names, as a user's suite does.
 */
import { Subject, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, createBridge } from 'mcp-bridge-sdk';
import type { Frame, Inbound, JsonObject, Logger } from 'mcp-bridge-sdk';
import { ajvInputChecks } from 'mcp-bridge-sdk/node';
import { createFakeUpstream, inputRequired, note, req, res, upstreamError } from 'mcp-bridge-sdk/testing';
import { allowTools } from './allowTools.js';

const quiet: Logger = { log: () => undefined, enabled: () => false };
const line = (frame: Frame): Inbound => ({ kind: 'frame', frame });

const ASK_NAME = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'What is your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
  },
};

/** The server: `echo` answers at once, `greet` asks for a name first, `fail` is refused. */
const script = () =>
  createFakeUpstream({
    serverInfo: { name: 'greeter', version: '2.0.0' },
    tools: {
      echo: (params) => ({ content: [{ type: 'text', text: JSON.stringify(params['arguments']) }] }),
      greet: (params) => {
        const answers = params['inputResponses'] as { name?: { content?: { name?: string } } } | undefined;
        if (answers === undefined) return inputRequired({ name: ASK_NAME }, 'round-1');
        return { content: [{ type: 'text', text: `Hello, ${answers.name?.content?.name ?? '?'}` }] };
      },
      fail: () => upstreamError(-32602, 'Bad arguments'),
    },
  });

/** My chain: the allow-list of this product around the bridge, over the fake upstream. */
function myChain(fake: ReturnType<typeof script>) {
  const bridge = createBridge(
    { version: '1.0.0', fallbackName: 'mine', limits: DEFAULT_LIMITS },
    // The schema checks of input rounds (ajv, for Node; README "Use the library").
    { connect: () => of(fake.connection), logger: quiet, checks: ajvInputChecks },
  );
  const lines$ = new Subject<Inbound>();
  const out: Frame[] = [];
  lines$.pipe(allowTools({ tools: ['echo', 'greet', 'fail'] }, bridge)).subscribe((frame) => out.push(frame));
  const initialize = (capabilities: JsonObject = {}): void => {
    lines$.next(
      line(
        req(1, 'initialize', {
          protocolVersion: '2025-11-25',
          capabilities,
          clientInfo: { name: 'c', version: '1' },
        }),
      ),
    );
    lines$.next(line(note('notifications/initialized')));
  };
  return { out, initialize, send: (frame: Frame) => lines$.next(line(frame)) };
}

describe('my chain over the fake upstream', () => {
  it('a tools/call round trip: the arguments reach the server, its result reaches the client', () => {
    const fake = script();
    const chain = myChain(fake);
    chain.initialize();
    chain.send(req(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }));
    expect(chain.out[0]).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'greeter', version: '2.0.0' } },
    });
    expect(chain.out.at(-1)).toEqual(res(2, { content: [{ type: 'text', text: '{"text":"hi"}' }] }));
    expect(fake.requestsOf('tools/call').map((request) => request.params['arguments'])).toEqual([
      { text: 'hi' },
    ]);
  });

  it('an input round: the client answers the elicitation, the second call carries the answer and the state', () => {
    const fake = script();
    const chain = myChain(fake);
    chain.initialize({ elicitation: { form: {} } });
    chain.send(req(2, 'tools/call', { name: 'greet', arguments: {} }));
    const ask = chain.out.at(-1) as { id: string | number; method: string; params: JsonObject };
    expect(ask.method).toBe('elicitation/create');
    expect(ask.params['message']).toBe('What is your name?');
    chain.send(res(ask.id, { action: 'accept', content: { name: 'Ada' } }));
    expect(chain.out.at(-1)).toEqual(res(2, { content: [{ type: 'text', text: 'Hello, Ada' }] }));
    const second = fake.requestsOf('tools/call')[1];
    expect(second?.params['inputResponses']).toEqual({
      name: { action: 'accept', content: { name: 'Ada' } },
    });
    expect(second?.params['requestState']).toBe('round-1');
  });

  it("a server's JSON-RPC error reaches the client with its code and message", () => {
    const chain = myChain(script());
    chain.initialize();
    chain.send(req(2, 'tools/call', { name: 'fail', arguments: {} }));
    expect(chain.out.at(-1)).toMatchObject({ id: 2, error: { code: -32602, message: 'Bad arguments' } });
  });
});
