/**
 * Response bodies of the Streamable HTTP transport as observables: one JSON body, or the data of
 * the events of an SSE stream (parsed with eventsource-parser). Both limit their size
 * (docs/http-upstream.md#http-client: `--max-response-bytes` for one JSON body and for each SSE event)
 * and destroy the body when the subscriber leaves.
 */
import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import { Observable } from 'rxjs';
import { BridgeError } from '../../protocol/bridgeError.js';
import type { BodyGate } from '../bodyGate.js';
import { errorCode } from './errorCode.js';

export { errorCode };

/**
 * Room for the field name of the line that carries the last bytes of an event: the parser counts
 * its buffer in characters, including the `data: ` prefix of a line still open.
 */
const PARSER_SLACK = 64;

const ignore = (): void => undefined;

/** The body broke after the status line: the request is lost (docs/http-upstream.md#http-stream-loss). */
const broken = (error: unknown): BridgeError =>
  new BridgeError('closed', { detail: `the response stream broke (${errorCode(error)})` });

/**
 * Attaches the data, end and error listeners of a body; the teardown detaches them and destroys
 * a body that has not ended. A late error of the destroyed body (an abort) must not become an
 * uncaught 'error' event, hence the listener that stays.
 */
function attach(
  body: Readable,
  gate: BodyGate | undefined,
  onData: (chunk: Buffer) => void,
  onEnd: () => void,
  onError: (error: unknown) => void,
): () => void {
  body.on('data', onData);
  body.once('end', onEnd);
  body.once('error', onError);
  // Paused with the other inputs of its connection while the client does not read (bodyGate.ts).
  const untrack = gate?.track(body);
  return () => {
    untrack?.();
    body.off('data', onData);
    body.off('end', onEnd);
    body.off('error', onError);
    body.on('error', ignore);
    if (!body.readableEnded) body.destroy();
  };
}

/**
 * Reads a whole body of at most `maxBytes` bytes. A longer body fails at once with
 * `invalid_response` (the Content-Length is checked before reading when present). The body is
 * not read while `gate` is paused.
 */
export function bodyText(
  body: Readable,
  maxBytes: number,
  contentLength?: number,
  gate?: BodyGate,
): Observable<string> {
  return new Observable<string>((subscriber) => {
    const tooLong = () =>
      new BridgeError('invalid_response', {
        detail: `the response is longer than the limit of ${maxBytes} bytes`,
      });
    if (contentLength !== undefined && contentLength > maxBytes) {
      subscriber.error(tooLong());
      return () => {
        body.on('error', ignore);
        body.destroy();
      };
    }
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length > maxBytes) subscriber.error(tooLong());
      else chunks.push(chunk);
    };
    const onEnd = () => {
      subscriber.next(Buffer.concat(chunks, length).toString('utf8'));
      subscriber.complete();
    };
    const onError = (error: unknown) => subscriber.error(broken(error));
    return attach(body, gate, onData, onEnd, onError);
  });
}

/**
 * The data of each message event of an SSE body, in order; completes when the body ends.
 * Comments (keep-alives), `id:` and `retry:` fields and events of another type than `message`
 * are ignored (docs/http-upstream.md#http-no-sessions). An event whose data is longer than `maxEventBytes`
 * fails the stream with `invalid_response` as soon as the parser holds more than that. The body
 * is not read while `gate` is paused.
 */
export function sseData(body: Readable, maxEventBytes: number, gate?: BodyGate): Observable<string> {
  return new Observable<string>((subscriber) => {
    const tooLong = () =>
      new BridgeError('invalid_response', {
        detail: `an event of the response stream is longer than the limit of ${maxEventBytes} bytes`,
      });
    const parser = createParser({
      maxBufferSize: maxEventBytes + PARSER_SLACK,
      onEvent: (event) => {
        if (subscriber.closed || (event.event !== undefined && event.event !== 'message')) return;
        if (Buffer.byteLength(event.data, 'utf8') > maxEventBytes) subscriber.error(tooLong());
        else subscriber.next(event.data);
      },
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') subscriber.error(tooLong());
      },
    });
    const decoder = new TextDecoder('utf-8');
    const onData = (chunk: Buffer) => {
      if (!subscriber.closed) parser.feed(decoder.decode(chunk, { stream: true }));
    };
    const onEnd = () => {
      if (subscriber.closed) return;
      const rest = decoder.decode();
      if (rest !== '') parser.feed(rest);
      // An event without its closing blank line is incomplete and dropped (WHATWG SSE).
      subscriber.complete();
    };
    const onError = (error: unknown) => subscriber.error(broken(error));
    return attach(body, gate, onData, onEnd, onError);
  });
}
