/**
 * The Telemetry port (src/ports/telemetry.ts) as OpenTelemetry metrics
 * (docs/observability.md#observability-metrics): the conventions' operation duration histograms
 * (gen-ai/mcp.md) and the `mcp.bridge.*` counters of what only a bridge sees. The OpenTelemetry
 * API module is never imported here, only its types: src/telemetry/startMetrics.ts loads it with
 * `import()` only when metrics are on.
 *
 * Attributes are names, codes and kinds only (docs/observability.md#observability-secrets); no
 * request id or session id either, since each value of an attribute is a series of its own.
 */
import type * as Api from '@opentelemetry/api';
import type {
  EndHandle,
  RequestHandle,
  RequestInfo,
  RoundHandle,
  SignInStepHandle,
  SignInStepInfo,
  SignInTelemetry,
  Telemetry,
} from '../ports/telemetry.js';
import type { ConnectionInfo } from './otelTelemetry.js';

/** The instruments of the bridge, made once per process. */
export interface BridgeInstruments {
  /** `mcp.server.operation.duration`: a client request, from its arrival to its response (s). */
  readonly serverDuration: Api.Histogram;
  /** `mcp.client.operation.duration`: one upstream round (s). */
  readonly clientDuration: Api.Histogram;
  /** `mcp.bridge.rounds`: upstream rounds of client requests. */
  readonly rounds: Api.Counter;
  /** `mcp.bridge.input_requests`: input requests sent to the client, by kind. */
  readonly inputRequests: Api.Counter;
  /** `mcp.bridge.limit.refusals`: requests refused by a limit, by the limit's name. */
  readonly refusals: Api.Counter;
  /** `mcp.bridge.sign_ins`: sign-ins (any grant), by grant and outcome. */
  readonly signIns: Api.Counter;
  /** `mcp.bridge.refreshes`: refresh-token grants, by outcome. */
  readonly refreshes: Api.Counter;
}

/**
 * The bucket boundaries (s) the conventions advise for the MCP operation durations
 * (gen-ai/mcp.md, "Metrics").
 */
export const DURATION_BOUNDARIES: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/** The instruments of the bridge on `meter` (docs/observability.md#observability-metrics). */
export function bridgeInstruments(meter: Api.Meter): BridgeInstruments {
  const duration = (name: string, description: string): Api.Histogram =>
    meter.createHistogram(name, {
      unit: 's',
      description,
      advice: { explicitBucketBoundaries: [...DURATION_BOUNDARIES] },
    });
  const counter = (name: string, unit: string, description: string) =>
    meter.createCounter(name, { unit, description });
  return {
    serverDuration: duration(
      'mcp.server.operation.duration',
      'Duration of a client request through the bridge',
    ),
    clientDuration: duration('mcp.client.operation.duration', 'Duration of one upstream round'),
    rounds: counter(
      'mcp.bridge.rounds',
      '{round}',
      'Upstream rounds of client requests (2 for a request with one input round)',
    ),
    inputRequests: counter(
      'mcp.bridge.input_requests',
      '{request}',
      'Input requests sent to the client, by kind',
    ),
    refusals: counter(
      'mcp.bridge.limit.refusals',
      '{request}',
      'Requests refused by a limit, by the name of the limit',
    ),
    signIns: counter('mcp.bridge.sign_ins', '{sign_in}', 'Sign-ins of a URL upstream, by grant and outcome'),
    refreshes: counter(
      'mcp.bridge.refreshes',
      '{refresh}',
      'Refreshes of the access token of a URL upstream, by outcome',
    ),
  };
}

/** The method of each input kind (docs/observability.md#observability-spans). */
const INPUT_METHODS: Readonly<Record<string, string>> = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
};

/** The attributes of a request's operation: method, tool, protocol revision and transport. */
function operationAttributes(info: RequestInfo, connection: ConnectionInfo): Api.Attributes {
  const attributes: Api.Attributes = {
    'mcp.method.name': info.method,
    'network.transport': connection.transport,
  };
  if (info.target !== undefined) {
    if (info.method === 'tools/call') attributes['gen_ai.tool.name'] = info.target;
    else attributes['gen_ai.prompt.name'] = info.target;
  }
  if (info.protocolVersion !== undefined) attributes['mcp.protocol.version'] = info.protocolVersion;
  return attributes;
}

/** The revision the bridge speaks upstream (docs/observability.md#observability-metrics). */
const UPSTREAM_REVISION = '2026-07-28';

/**
 * The attributes of an upstream round: the request's method and target, the upstream's revision.
 * The upstream's transport is not known at this seam, so `network.transport` is left out.
 */
function roundAttributes(info: RequestInfo): Api.Attributes {
  const {
    ['network.transport']: _client,
    ['mcp.protocol.version']: _revision,
    ...rest
  } = operationAttributes(info, { transport: 'pipe' });
  return { ...rest, 'mcp.protocol.version': UPSTREAM_REVISION };
}

const withError = (attributes: Api.Attributes, errorType: string | undefined): Api.Attributes =>
  errorType === undefined ? attributes : { ...attributes, 'error.type': errorType };

/** Seconds since `start` (a performance.now() value). */
const since = (start: number): number => (performance.now() - start) / 1000;

/** A handle that ends once. */
function once(end: (errorType?: string) => void): (errorType?: string) => void {
  let ended = false;
  return (errorType) => {
    if (ended) return;
    ended = true;
    end(errorType);
  };
}

/** The Telemetry of one connection as metrics. */
export function metricsTelemetry(instruments: BridgeInstruments, connection: ConnectionInfo): Telemetry {
  return {
    limitRefused: (limit) => instruments.refusals.add(1, { 'mcp.bridge.limit': limit }),
    requestStarted(info: RequestInfo): RequestHandle {
      const start = performance.now();
      const attributes = operationAttributes(info, connection);
      const upstream = roundAttributes(info);
      return {
        end: once((errorType) =>
          instruments.serverDuration.record(since(start), withError(attributes, errorType)),
        ),
        roundStarted(): RoundHandle {
          const roundStart = performance.now();
          instruments.rounds.add(1, attributes);
          const end = once((errorType) =>
            instruments.clientDuration.record(since(roundStart), withError(upstream, errorType)),
          );
          return { context: undefined, end: (outcome) => end(outcome.errorType) };
        },
        inputRequested(kind: string): EndHandle {
          instruments.inputRequests.add(1, {
            'mcp.method.name': INPUT_METHODS[kind] ?? kind,
            'mcp.bridge.input.kind': kind,
          });
          return { end: () => undefined };
        },
      };
    },
  };
}

const NO_WAIT: EndHandle = { end: () => undefined };

/**
 * The sign-in's counters (docs/observability.md#observability-metrics): one count per sign-in and
 * per refresh when it ends, with the grant and the outcome; a wait for the token lock counts nothing.
 */
export function signInMetrics(instruments: BridgeInstruments): SignInTelemetry {
  const counted =
    (counter: Api.Counter) =>
    (info: SignInStepInfo): SignInStepHandle => ({
      end: (outcome) =>
        counter.add(1, { 'mcp.bridge.auth.grant': info.grant, 'mcp.bridge.auth.outcome': outcome }),
    });
  return {
    signInStarted: counted(instruments.signIns),
    refreshStarted: counted(instruments.refreshes),
    lockWaitStarted: () => NO_WAIT,
  };
}
