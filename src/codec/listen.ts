/**
 * The `subscriptions/listen` side of the codec (docs/notifications.md#notifications-filter–docs/notifications.md#notifications-catch-up,
 * docs/notifications.md#notifications-listener): the filter of a stream, the events the client gets, and the gap
 * replay after each acknowledgment.
 */
import { isObject, isRequestId, notification } from '../protocol/jsonrpc.js';
import type { JsonObject, NotificationFrame, RequestId } from '../protocol/jsonrpc.js';
import { META_SUBSCRIPTION_ID } from '../protocol/metaKey.js';
import { isEmpty, omit } from './objects.js';

/** What the `initialize` result we sent declared: a listen stream backs each true flag. */
export interface DeclaredLists {
  /** `tools.listChanged` */
  readonly tools: boolean;
  /** `prompts.listChanged` */
  readonly prompts: boolean;
  /** `resources.listChanged` */
  readonly resources: boolean;
  /** `resources.subscribe` */
  readonly subscribe: boolean;
}

export const TOOLS_LIST_CHANGED = 'notifications/tools/list_changed';
export const PROMPTS_LIST_CHANGED = 'notifications/prompts/list_changed';
export const RESOURCES_LIST_CHANGED = 'notifications/resources/list_changed';
export const RESOURCE_UPDATED = 'notifications/resources/updated';
export const LISTEN_ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

const flag = (capabilities: JsonObject, name: string, member: string): boolean => {
  const capability = capabilities[name];
  return isObject(capability) && capability[member] === true;
};

/** Reads the flags from the capabilities of the `initialize` result we sent (docs/notifications.md#notifications-listener). */
export function declaredLists(legacyServerCapabilities: JsonObject): DeclaredLists {
  return {
    tools: flag(legacyServerCapabilities, 'tools', 'listChanged'),
    prompts: flag(legacyServerCapabilities, 'prompts', 'listChanged'),
    resources: flag(legacyServerCapabilities, 'resources', 'listChanged'),
    subscribe: flag(legacyServerCapabilities, 'resources', 'subscribe'),
  };
}

/**
 * `params.notifications` of a listen request (docs/notifications.md#notifications-filter): only the true list flags, and
 * `resourceSubscriptions` only when there are URIs (each once, in order). Undefined when the
 * filter is empty: then no stream opens (docs/notifications.md#notifications-listener).
 */
export function listenFilter(declared: DeclaredLists, uris: readonly string[]): JsonObject | undefined {
  const filter: JsonObject = {};
  if (declared.tools) filter['toolsListChanged'] = true;
  if (declared.prompts) filter['promptsListChanged'] = true;
  if (declared.resources) filter['resourcesListChanged'] = true;
  if (uris.length > 0) filter['resourceSubscriptions'] = [...new Set(uris)];
  return isEmpty(filter) ? undefined : filter;
}

/** Is the event of `method` one the client gets, given what was declared? */
function forwarded(method: string, declared: DeclaredLists): boolean {
  switch (method) {
    case TOOLS_LIST_CHANGED:
      return declared.tools;
    case PROMPTS_LIST_CHANGED:
      return declared.prompts;
    case RESOURCES_LIST_CHANGED:
      return declared.resources;
    case RESOURCE_UPDATED:
      return declared.subscribe;
    default:
      // The acknowledgment, upstream `notifications/cancelled` (ids of both sides collide,
      // docs/notifications.md#notifications-events) and anything else stay with the bridge.
      return false;
  }
}

/**
 * The event for the client (docs/notifications.md#notifications-events), or undefined when it does not go to the client. The
 * subscription id leaves `_meta`; an emptied `_meta` and emptied params are removed, so list
 * changes go without params and updates as `{"uri": ...}`. An update needs a string `uri`.
 */
export function toLegacyListenEvent(
  frame: NotificationFrame,
  declared: DeclaredLists,
): NotificationFrame | undefined {
  if (!forwarded(frame.method, declared)) return undefined;
  const params = isObject(frame.params) ? frame.params : {};
  if (frame.method === RESOURCE_UPDATED && typeof params['uri'] !== 'string') return undefined;
  let out = params;
  if (Object.hasOwn(params, '_meta')) {
    const meta = params['_meta'];
    const kept = isObject(meta) ? omit(meta, [META_SUBSCRIPTION_ID]) : {};
    out = omit(params, ['_meta']);
    if (!isEmpty(kept)) out['_meta'] = kept;
  }
  return isEmpty(out) ? notification(frame.method) : notification(frame.method, out);
}

/** A set of the lists with a list change (tools, prompts, resources): one bit each. */
export type ListSet = number;
export const NO_LISTS: ListSet = 0;
const TOOLS_LIST: ListSet = 1;
const PROMPTS_LIST: ListSet = 2;
const RESOURCES_LIST: ListSet = 4;
export const ALL_LISTS: ListSet = TOOLS_LIST | PROMPTS_LIST | RESOURCES_LIST;

/** The lists whose `listChanged` the `initialize` result declared: a listen stream watches them. */
export function declaredListSet(declared: DeclaredLists): ListSet {
  return (
    (declared.tools ? TOOLS_LIST : NO_LISTS) |
    (declared.prompts ? PROMPTS_LIST : NO_LISTS) |
    (declared.resources ? RESOURCES_LIST : NO_LISTS)
  );
}

/**
 * The list a client request fetches, or NO_LISTS for any other method. `resources/templates/list`
 * counts for the resources list: `notifications/resources/list_changed` makes clients fetch
 * both again.
 */
export function listOfRequest(method: string): ListSet {
  switch (method) {
    case 'tools/list':
      return TOOLS_LIST;
    case 'prompts/list':
      return PROMPTS_LIST;
    case 'resources/list':
    case 'resources/templates/list':
      return RESOURCES_LIST;
    default:
      return NO_LISTS;
  }
}

/**
 * The catch-up after a (re)acknowledged stream (README.md "List changes and subscriptions"): one
 * list change per declared list in `lists`, in the order tools, prompts, resources, then one
 * update per subscribed URI.
 *
 * The first acknowledgment of a connection passes the lists the client fetched before it: a
 * list fetched earlier may predate a change made before the stream was established (a list
 * request racing `notifications/initialized`), while a list the client has not fetched yet
 * needs no change, since its first fetch comes after the stream is established. A catch-up
 * after a gap passes ALL_LISTS: the client may hold any of them.
 */
export function gapReplay(
  declared: DeclaredLists,
  uris: readonly string[],
  lists: ListSet = ALL_LISTS,
): NotificationFrame[] {
  const events: NotificationFrame[] = [];
  if (declared.tools && (lists & TOOLS_LIST) !== 0) events.push(notification(TOOLS_LIST_CHANGED));
  if (declared.prompts && (lists & PROMPTS_LIST) !== 0) events.push(notification(PROMPTS_LIST_CHANGED));
  if (declared.resources && (lists & RESOURCES_LIST) !== 0) events.push(notification(RESOURCES_LIST_CHANGED));
  for (const uri of new Set(uris)) events.push(notification(RESOURCE_UPDATED, { uri }));
  return events;
}

/** The listen request id that tags an event or the acknowledgment (docs/notifications.md#notifications-events). */
export function listenSubscriptionId(frame: NotificationFrame): RequestId | undefined {
  const meta = frame.params?.['_meta'];
  if (!isObject(meta)) return undefined;
  const id = meta[META_SUBSCRIPTION_ID];
  return isRequestId(id) ? id : undefined;
}
