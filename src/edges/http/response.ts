/**
 * One HTTP response of the Streamable HTTP transport as the JSON-RPC messages of its exchange
 * (docs/http-upstream.md#http-responses). Status → outcome:
 *
 * | status | outcome |
 * | --- | --- |
 * | 2xx `application/json` | the one JSON-RPC response of the body |
 * | 2xx `text/event-stream` | the messages of the events, the response last |
 * | 2xx of another type (202 included) | `invalid_response` |
 * | 401, 403 | `transport_failed` (sign-in will handle these) |
 * | 408, 429, 5xx | `transport_failed`: the server or an intermediary did not take the request; the body is not read |
 * | other 4xx with a JSON-RPC error body | that error as the response (an id-less error gets the request's id) |
 * | other 4xx without one, 1xx, 3xx (redirects are not followed) | `invalid_response` |
 *
 * Every failure has `httpStatus`. Details start with the method and never hold body contents.
 */
import type { Readable } from 'node:stream';
import type { Observable } from 'rxjs';
import { catchError, map, throwError } from 'rxjs';
import type { Dispatcher } from 'undici';
import type { Cause } from '../../protocol/errors.js';
import type { Frame, ResponseFrame } from '../../protocol/jsonrpc.js';
import { asFrame, isErrorResponse, isResponse } from '../../protocol/jsonrpc.js';
import { BridgeError, isBridgeError } from '../../protocol/bridgeError.js';
import type { BodyGate } from '../bodyGate.js';
import { bodyText, sseData } from './sse.js';

/** The exchange a response belongs to. */
export interface ResponseContext {
  readonly id: number;
  readonly method: string;
  readonly maxResponseBytes: number;
  /** The body gate of the connection (bodyGate.ts): its bodies are not read while it is paused. */
  readonly bodies?: BodyGate;
}

/** The subset of undici's response data that is read here. */
export type HttpResponse = Pick<Dispatcher.ResponseData, 'statusCode' | 'headers'> & {
  readonly body: Readable;
};

const ignore = (): void => undefined;

const header = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** The media type of a Content-Type value, lowercased, without parameters. */
export const mediaType = (value: string | string[] | undefined): string =>
  (header(value) ?? '').split(';')[0]!.trim().toLowerCase();

function parse(text: string): Frame | undefined {
  try {
    return asFrame(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * Checks that a response answers this exchange. An error without id (allowed when the server
 * could not read the id) is given the id of the request, so that the frame is consistent.
 */
function ownResponse(frame: ResponseFrame, ctx: ResponseContext): ResponseFrame | undefined {
  if (frame.id === ctx.id) return frame;
  return isErrorResponse(frame) && frame.id === null ? { ...frame, id: ctx.id } : undefined;
}

/** The JSON-RPC messages of one response; the response frame, when any, is the last one. */
export function responseMessages(response: HttpResponse, ctx: ResponseContext): Observable<Frame> {
  const status = response.statusCode;
  const fail = (cause: Cause, detail: string) => {
    response.body.on('error', ignore);
    response.body.destroy();
    return throwError(
      () => new BridgeError(cause, { detail: `${ctx.method}: ${detail}`, httpStatus: status }),
    );
  };
  const withStatus = catchError<Frame, Observable<never>>((error: unknown) =>
    throwError(() =>
      isBridgeError(error)
        ? new BridgeError(error.code, {
            detail: `${ctx.method}: ${error.detail ?? error.code}`,
            httpStatus: status,
          })
        : error,
    ),
  );
  const lengthHeader = Number(header(response.headers['content-length']));
  const length = Number.isSafeInteger(lengthHeader) ? lengthHeader : undefined;
  // Thrown inside the pipes below: `withStatus` adds the method and the status.
  const invalid = (detail: string) => new BridgeError('invalid_response', { detail });

  if (status >= 200 && status < 300) {
    const type = mediaType(response.headers['content-type']);
    if (type === 'application/json') {
      return bodyText(response.body, ctx.maxResponseBytes, length, ctx.bodies).pipe(
        map((text) => {
          const frame = parse(text);
          if (frame === undefined || !isResponse(frame))
            throw invalid('the response is not a JSON-RPC response');
          const own = ownResponse(frame, ctx);
          if (own === undefined) throw invalid('the response answers another request');
          return own;
        }),
        withStatus,
      );
    }
    if (type === 'text/event-stream') {
      return sseData(response.body, ctx.maxResponseBytes, ctx.bodies).pipe(
        map((data) => {
          const frame = parse(data);
          if (frame === undefined) throw invalid('an event of the response stream is not a JSON-RPC message');
          if (!isResponse(frame)) return frame;
          const own = ownResponse(frame, ctx);
          if (own === undefined) throw invalid('the response stream holds a response to another request');
          return own;
        }),
        withStatus,
      );
    }
    return fail('invalid_response', 'the response is neither application/json nor text/event-stream');
  }
  if (status === 401 || status === 403)
    return fail('transport_failed', 'the upstream server refused the access');
  if (status === 408 || status === 429 || status >= 500) {
    return fail('transport_failed', 'the upstream server or a proxy did not take the request');
  }
  if (status >= 400) {
    return bodyText(response.body, ctx.maxResponseBytes, length, ctx.bodies).pipe(
      map((text) => {
        const frame = parse(text);
        const own =
          frame !== undefined && isResponse(frame) && isErrorResponse(frame)
            ? ownResponse(frame, ctx)
            : undefined;
        if (own === undefined) throw invalid('the upstream server answered without a JSON-RPC error');
        return own;
      }),
      withStatus,
    );
  }
  return fail('invalid_response', 'the upstream server answered with a status that has no JSON-RPC response');
}
