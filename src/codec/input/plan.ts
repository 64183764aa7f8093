/**
 * Plans one round of input requests (docs/input-rounds.md#input-rounds to docs/input-rounds.md#input-url-again): checks every input
 * request of an `input_required` result, then decides what the client is asked, what the
 * upstream gets without asking, and which accepted URLs are complete.
 * Pure: no rxjs, no node:*.
 */
import { isObject } from '../../protocol/jsonrpc.js';
import type { JsonObject, JsonValue } from '../../protocol/jsonrpc.js';
import { formSchemaFor, samplingParamsFor, usesTools } from '../downgradeRounds.js';
import { NEWEST_CLIENT_REVISION } from '../revisions.js';
import type { ClientRevision } from '../revisions.js';
import { keyDetail } from './detail.js';
import type { InputSchemaChecks } from './checks.js';
import type { AcceptedUrl, InputAsk, InputFailure, InputLogEntry, InputSession, RoundPlan } from './types.js';
import { isAllowedElicitationUrl } from './url.js';

/** What planning a round needs besides the result. */
export interface PlanContext {
  /** The capabilities the client declared in `initialize` (2025-11-25 shape). */
  readonly clientCapabilities: JsonObject;
  /**
   * The client's revision (docs/revisions.md); default 2025-11-25. An input request that this
   * revision cannot carry is refused like an undeclared one.
   */
  readonly clientRevision?: ClientRevision;
  /** Most input requests in one round (reference default 16). */
  readonly maxInputRequests: number;
  /** What this client request remembers from its earlier rounds. */
  readonly session: InputSession;
  /** Makes a new `elicitationId` (`elicitation-N`, per connection); called only for a plan. */
  nextElicitationId(): string;
  /** The schema checks (BridgeDeps.checks in the bridge). */
  readonly checks: InputSchemaChecks;
}

export type PlanOutcome = { readonly plan: RoundPlan } | { readonly failure: InputFailure };

/** The one property of the Continue form (docs/input-rounds.md#input-checks, docs/input-rounds.md#input-url-again). */
export const CONTINUE_SCHEMA: JsonObject = Object.freeze({
  type: 'object',
  properties: Object.freeze({
    continue: Object.freeze({
      type: 'string',
      title: 'Continue',
      enum: Object.freeze(['Continue']) as string[],
    }),
  }),
  required: Object.freeze(['continue']) as string[],
});

/** The message of the Continue form for an accepted URL asked again. */
export const CONTINUE_URL_MESSAGE = 'Finish the step in the web browser, then select Continue.';

/** An input request after its checks, before ids are given. */
type Draft =
  | { readonly key: string; readonly type: 'form'; readonly params: JsonObject; readonly schema: JsonObject }
  | { readonly key: string; readonly type: 'url'; readonly message: string; readonly url: string }
  | { readonly key: string; readonly type: 'sampling'; readonly params: JsonObject }
  | { readonly key: string; readonly type: 'roots' };

const invalid = (detail: string): { failure: InputFailure } => ({
  failure: { cause: 'invalid_input_request', detail },
});
const undeclared = (key: string, capability: string): { failure: InputFailure } => ({
  failure: {
    cause: 'undeclared_input_request',
    detail: keyDetail(key, `the client did not declare ${capability}`),
  },
});
/** The failure of an input request that the client's revision cannot carry (docs/revisions.md). */
const notInRevision = (key: string, revision: ClientRevision, what: string): { failure: InputFailure } => ({
  failure: {
    cause: 'undeclared_input_request',
    detail: keyDetail(key, `the client speaks MCP ${revision}, which has no ${what}`),
  },
});
const notSchemaShape = (key: string) =>
  invalid(keyDetail(key, 'the request does not have the shape of the schema'));

/**
 * Plans the round of an `input_required` result, or gives the failure of the client request.
 * Checks, in this order: the types of `inputRequests` and `requestState`; the number of input
 * requests; then per input request in key order: a known kind, a declared kind, sampling tools,
 * the 2025-11-25 shape and a `requestedSchema` that compiles. Nothing is asked when a check fails,
 * and no `elicitationId` is made.
 */
export function planRound(result: JsonObject, context: PlanContext): PlanOutcome {
  const { inputRequests, requestState } = result;
  if (inputRequests != null && !isObject(inputRequests)) return invalid('inputRequests is not an object');
  if (requestState != null && typeof requestState !== 'string')
    return invalid('requestState is not a string');
  if (!isObject(inputRequests) && typeof requestState !== 'string') {
    return invalid('the input_required result has neither inputRequests nor requestState');
  }
  const entries = Object.entries(isObject(inputRequests) ? inputRequests : {});
  if (entries.length > context.maxInputRequests) {
    return {
      failure: {
        cause: 'too_many_input_requests',
        detail: `${entries.length} input requests in one round, limit: ${context.maxInputRequests}`,
      },
    };
  }
  const drafts: Draft[] = [];
  for (const [key, request] of entries) {
    const checked = checkInputRequest(
      key,
      request,
      context.clientCapabilities,
      context.checks,
      context.clientRevision ?? NEWEST_CLIENT_REVISION,
    );
    if ('failure' in checked) return checked;
    drafts.push(checked.draft);
  }
  return { plan: buildPlan(drafts, result, context) };
}

function checkInputRequest(
  key: string,
  request: JsonValue,
  capabilities: JsonObject,
  { matchesSpec, formValidator }: InputSchemaChecks,
  revision: ClientRevision,
): { draft: Draft } | { failure: InputFailure } {
  if (!isObject(request) || typeof request['method'] !== 'string') return notSchemaShape(key);
  const { method, params } = request;
  const elicitation = capabilities['elicitation'];
  switch (method) {
    case 'elicitation/create': {
      if (!isObject(params)) return notSchemaShape(key);
      const mode = params['mode'];
      if (mode === 'url') {
        // Whatever the client's revision: a client that declared URL mode gets it in the shape of
        // 2025-11-25, the revision that defines it (docs/revisions.md#revisions-declared).
        if (!isObject(elicitation) || !isObject(elicitation['url']))
          return undeclared(key, 'elicitation.url');
        const { message, url } = params;
        const sent = { mode: 'url', message, url, elicitationId: 'elicitation-0' } as JsonObject;
        const valid = matchesSpec('ElicitRequestURLParams', sent);
        if (!valid || typeof message !== 'string' || typeof url !== 'string') return notSchemaShape(key);
        return { draft: { key, type: 'url', message, url } };
      }
      if (mode !== undefined && mode !== 'form')
        return invalid(keyDetail(key, 'the elicitation mode is unknown'));
      if (!declaresForm(capabilities)) return undeclared(key, 'elicitation.form');
      const { message, requestedSchema } = params;
      const sent = { mode: 'form', message, requestedSchema } as JsonObject;
      if (!matchesSpec('ElicitRequestFormParams', sent) || !isObject(requestedSchema))
        return notSchemaShape(key);
      if (formValidator(requestedSchema) === undefined) {
        return invalid(keyDetail(key, 'the requestedSchema does not compile'));
      }
      // The answer is checked against the schema the upstream sent; the client gets its form.
      const shown = formSchemaFor(requestedSchema, revision);
      if (shown === undefined) return notInRevision(key, revision, 'multi-select enums in forms');
      const forClient = shown === requestedSchema ? sent : { ...sent, requestedSchema: shown };
      return { draft: { key, type: 'form', params: forClient, schema: requestedSchema } };
    }
    case 'sampling/createMessage': {
      const sampling = capabilities['sampling'];
      if (!isObject(sampling)) return undeclared(key, 'sampling');
      if (isObject(params) && usesTools(params) && !isObject(sampling['tools'])) {
        return {
          failure: {
            cause: 'undeclared_input_request',
            detail: keyDetail(
              key,
              'sampling with tools needs sampling.tools, and the client did not declare it',
            ),
          },
        } as const;
      }
      if (!isObject(params)) return notSchemaShape(key);
      const { task: _task, _meta, ...sent } = params;
      if (!matchesSpec('CreateMessageRequestParams', sent)) return notSchemaShape(key);
      if (samplingParamsFor(sent, revision) === undefined) {
        return notInRevision(
          key,
          revision,
          'such sampling messages (audio, or several content blocks in one message)',
        );
      }
      return { draft: { key, type: 'sampling', params: sent } };
    }
    case 'roots/list':
      if (!isObject(capabilities['roots'])) return undeclared(key, 'roots');
      if (params !== undefined && !isObject(params)) return notSchemaShape(key);
      return { draft: { key, type: 'roots' } };
    default:
      return invalid(keyDetail(key, 'the method is not an input request of revision 2025-11-25'));
  }
}

/** `elicitation: {}` means form mode only (2025-11-25 backward compatibility). */
export function declaresForm(capabilities: JsonObject): boolean {
  const elicitation = capabilities['elicitation'];
  if (!isObject(elicitation)) return false;
  if (elicitation['form'] === undefined && elicitation['url'] === undefined) return true;
  return isObject(elicitation['form']);
}

function buildPlan(drafts: readonly Draft[], result: JsonObject, context: PlanContext): RoundPlan {
  const askedUrls = new Set(drafts.flatMap((draft) => (draft.type === 'url' ? [draft.url] : [])));
  const kept = context.session.acceptedUrls.filter((accepted) => askedUrls.has(accepted.url));
  const complete = context.session.acceptedUrls
    .filter((accepted) => !askedUrls.has(accepted.url))
    .map((accepted) => accepted.elicitationId);
  const asks: InputAsk[] = [];
  const immediate = new Map<string, JsonObject>();
  const warnings: InputLogEntry[] = [];
  const formMode = declaresForm(context.clientCapabilities);
  for (const draft of drafts) {
    const { key } = draft;
    switch (draft.type) {
      case 'form': {
        const properties = draft.schema['properties'];
        if (isObject(properties) && Object.keys(properties).length === 0) {
          const params = {
            mode: 'form',
            message: draft.params['message'] ?? '',
            requestedSchema: CONTINUE_SCHEMA,
          };
          asks.push({ key, kind: 'emptyForm', method: 'elicitation/create', params });
        } else {
          asks.push({
            key,
            kind: 'form',
            method: 'elicitation/create',
            params: draft.params,
            requestedSchema: draft.schema,
          });
        }
        break;
      }
      case 'url': {
        const accepted = kept.find((entry) => entry.url === draft.url);
        if (accepted !== undefined && formMode) {
          const params = { mode: 'form', message: CONTINUE_URL_MESSAGE, requestedSchema: CONTINUE_SCHEMA };
          asks.push({ key, kind: 'urlAgain', method: 'elicitation/create', params, url: accepted });
        } else if (accepted !== undefined || isAllowedElicitationUrl(draft.url)) {
          const url: AcceptedUrl = accepted ?? { url: draft.url, elicitationId: context.nextElicitationId() };
          const params = {
            mode: 'url',
            message: draft.message,
            url: url.url,
            elicitationId: url.elicitationId,
          };
          asks.push({ key, kind: 'url', method: 'elicitation/create', params, url });
        } else {
          immediate.set(key, { action: 'decline' });
          warnings.push({
            level: 'warn',
            text: keyDetail(
              key,
              'the bridge refused the URL of a URL elicitation; the upstream server gets decline',
            ),
          });
        }
        break;
      }
      case 'sampling':
        asks.push({ key, kind: 'sampling', method: 'sampling/createMessage', params: draft.params });
        break;
      case 'roots':
        asks.push({ key, kind: 'roots', method: 'roots/list' });
        break;
    }
  }
  const { inputRequests, requestState } = result;
  return {
    keys: drafts.map((draft) => draft.key),
    asks,
    immediate: Object.fromEntries(immediate),
    warnings,
    complete,
    answersInputRequests: isObject(inputRequests),
    ...(typeof requestState === 'string' ? { requestState } : {}),
    inputRequestCount: drafts.length,
    session: { acceptedUrls: kept },
    checks: context.checks,
  };
}
