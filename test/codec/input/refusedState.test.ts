import { describe, expect, it } from 'vitest';
import { refusedStateRule, refusedStateText } from '../../../src/codec/input/refusedState.js';

const REFUSED = {
  code: -32602,
  message: 'Invalid or expired requestState',
  data: { reason: 'invalid_request_state' },
};
const WARNING = {
  level: 'warn',
  text: 'the upstream server refused the request state after an input wait of 95 s',
};

describe('refusedStateRule (docs/input-rounds.md#input-refused-state)', () => {
  it('gives tools/call an isError result that tells the user to run the tool again', () => {
    const text = refusedStateText('Invalid or expired requestState', 'Run the tool again.');
    expect(refusedStateRule('tools/call', REFUSED, true, 95_000)).toEqual({
      result: { content: [{ type: 'text', text }], isError: true },
      log: WARNING,
    });
    expect(text).toMatch(/Upstream message: Invalid or expired requestState\. Run the tool again\.$/);
  });

  it.each(['prompts/get', 'resources/read'])(
    'gives %s a -32602 error with the text and the upstream data',
    (method) => {
      expect(refusedStateRule(method, REFUSED, true, 95_000)).toEqual({
        error: {
          code: -32602,
          message: refusedStateText('Invalid or expired requestState', 'Send the request again.'),
          data: { reason: 'invalid_request_state' },
        },
        log: WARNING,
      });
    },
  );

  it('leaves out data the upstream did not send', () => {
    const outcome = refusedStateRule('prompts/get', { code: -32602, message: 'bad' }, true, 300);
    expect(outcome && 'error' in outcome && 'data' in outcome.error).toBe(false);
    expect(outcome?.log.text).toBe(
      'the upstream server refused the request state after an input wait of 300 ms',
    );
  });

  it('passes a -32602 of a round without requestState unchanged', () => {
    expect(refusedStateRule('tools/call', REFUSED, false, 0)).toBeUndefined();
  });

  it('passes other errors unchanged', () => {
    expect(refusedStateRule('tools/call', { code: -32603, message: 'x' }, true, 0)).toBeUndefined();
    expect(refusedStateRule('tools/call', { code: -32601, message: 'x' }, true, 0)).toBeUndefined();
  });
});
