/**
 * The state of one forwarded client request (forward.ts) and its way out: its frames for the
 * client (forwardShape.ts) and its end. Round 1 is forwardFirstRound.ts, the slow-request lines
 * forwardSlow.ts, the rounds after an `input_required` forwardRounds.ts.
 */
import type { Subject, Subscriber, Unsubscribable } from 'rxjs';
import type { RoundOutput } from '../../operators/driveInputRounds.js';
import type { Frame, JsonValue, RequestFrame } from '../protocol/jsonrpc.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { Deadline } from './deadlines.js';
import { outputFrame } from './forwardShape.js';
import type { ForwardContext, ProgressState } from './forwardShape.js';
import type { RoundHost } from './forwardRounds.js';
import type { Abort } from './session.js';

/** The state of one forwarded request: its rounds' host, its progress, its current work. */
export interface Run extends RoundHost, ProgressState {
  readonly subscriber: Subscriber<Frame>;
  ended: boolean;
  /** The round-1 exchange, then the round driver once a result says `input_required`. */
  current: Unsubscribable | undefined;
  /** The time limit of round 1, until its response or the hand-over. */
  deadline: Deadline | undefined;
  /** The next slow-request line (docs/requests.md#requests-slow-lines) and how many were logged. */
  slow: Deadline | undefined;
  slowTicks: number;
  /**
   * When round 1's limit is longer than the wait for the first slow-request line, one deadline
   * does both (one entry and one clock read per request): the first line's entry arms
   * the rest of the limit, this many ms, if round 1 still runs then.
   */
  limitAfterSlow: number | undefined;
  /** Only while the round driver runs: how a stop reaches it. */
  driverStop$: Subject<Abort> | undefined;
}

/** RoundHost's functions before the hand-over: the round driver is the only caller (asRoundHost). */
const notHandedOver = (): never => {
  throw new Error('the round driver has not started');
};

/** The state of a request that starts now, in one object: fewer objects per call. */
export function createRun(ctx: ForwardContext, request: RequestFrame, subscriber: Subscriber<Frame>): Run {
  const clientMeta = request.params?.['_meta'];
  const progressToken: JsonValue | undefined = isObject(clientMeta) ? clientMeta['progressToken'] : undefined;
  return {
    ctx,
    request,
    subscriber,
    progressToken,
    lastProgress: -Infinity,
    cancelReason: 'the client canceled the request',
    waitingForClient: false,
    ended: false,
    current: undefined,
    deadline: undefined,
    slow: undefined,
    slowTicks: 0,
    limitAfterSlow: undefined,
    driverStop$: undefined,
    emitGuarded: notHandedOver,
    fail: notHandedOver,
    finish: notHandedOver,
  };
}

/** The request as the round driver's host: its functions are made only when the driver starts. */
export function asRoundHost(run: Run): RoundHost {
  run.emitGuarded = (output) => emitGuarded(run, output);
  run.fail = (error) => run.subscriber.error(error);
  run.finish = () => finish(run);
  return run;
}

/** The frame of one output for the client, if any. */
export function emit(run: Run, output: RoundOutput): void {
  const frame = outputFrame(run.ctx, run.request, run, output);
  if (frame !== undefined) run.subscriber.next(frame);
}

/** A throw while making a frame fails this request alone (the caller answers it). */
export function emitGuarded(run: Run, output: RoundOutput): void {
  try {
    emit(run, output);
  } catch (error: unknown) {
    run.subscriber.error(error);
  }
}

/** Ends the request after its last frame. */
export function finish(run: Run): void {
  run.ended = true;
  run.subscriber.complete();
}
