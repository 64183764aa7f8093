import { describe, expect, it } from 'vitest';
import {
  ALL_LISTS,
  NO_LISTS,
  declaredLists,
  gapReplay,
  listenFilter,
  listOfRequest,
  listenSubscriptionId,
  toLegacyListenEvent,
} from '../../src/codec/listen.js';
import type { DeclaredLists } from '../../src/codec/listen.js';
import { notification } from '../../src/protocol/jsonrpc.js';
import type { JsonObject } from '../../src/protocol/jsonrpc.js';
import { findModernLeaks, validateLegacyFrame } from '../helpers/schemas.js';

const all: DeclaredLists = { tools: true, prompts: true, resources: true, subscribe: true };
const none: DeclaredLists = { tools: false, prompts: false, resources: false, subscribe: false };
const tagged = (method: string, params: JsonObject = {}, id: string | number = 'listen-1') =>
  notification(method, { ...params, _meta: { 'io.modelcontextprotocol/subscriptionId': id } });

describe('declaredLists', () => {
  it('reads the listChanged and subscribe flags of the initialize result we sent', () => {
    expect(
      declaredLists({
        tools: { listChanged: true },
        prompts: {},
        resources: { subscribe: true },
        logging: {},
      }),
    ).toEqual({ tools: true, prompts: false, resources: false, subscribe: true });
    expect(declaredLists({})).toEqual(none);
  });
});

describe('listenFilter', () => {
  it('asks only for the declared lists and the subscribed URIs', () => {
    expect(listenFilter(all, ['file:///a', 'file:///b', 'file:///a'])).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['file:///a', 'file:///b'],
    });
    expect(listenFilter({ ...none, prompts: true }, [])).toEqual({ promptsListChanged: true });
    expect(listenFilter({ ...none, subscribe: true }, ['u'])).toEqual({ resourceSubscriptions: ['u'] });
  });

  it('is undefined when it would be empty, so no stream opens', () => {
    expect(listenFilter(none, [])).toBeUndefined();
    expect(listenFilter({ ...none, subscribe: true }, [])).toBeUndefined();
  });
});

describe('toLegacyListenEvent', () => {
  it.each([
    'notifications/tools/list_changed',
    'notifications/prompts/list_changed',
    'notifications/resources/list_changed',
  ])('forwards %s without params once the subscription id is gone', (method) => {
    const event = toLegacyListenEvent(tagged(method), all);
    expect(event).toEqual({ jsonrpc: '2.0', method });
    expect(validateLegacyFrame(event, 'toClient')).toEqual([]);
  });

  it('forwards an update as {uri} and keeps other _meta keys', () => {
    expect(toLegacyListenEvent(tagged('notifications/resources/updated', { uri: 'file:///a' }), all)).toEqual(
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'file:///a' },
      },
    );
    const traced = notification('notifications/tools/list_changed', {
      _meta: { 'io.modelcontextprotocol/subscriptionId': 1, traceparent: 't' },
    });
    const event = toLegacyListenEvent(traced, all);
    expect(event).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { traceparent: 't' } },
    });
    expect(findModernLeaks(event)).toEqual([]);
  });

  it('drops an update without a string uri', () => {
    expect(toLegacyListenEvent(tagged('notifications/resources/updated', { uri: 5 }), all)).toBeUndefined();
    expect(toLegacyListenEvent(tagged('notifications/resources/updated'), all)).toBeUndefined();
  });

  it('drops events of lists that were not declared', () => {
    expect(
      toLegacyListenEvent(tagged('notifications/tools/list_changed'), { ...all, tools: false }),
    ).toBeUndefined();
    expect(
      toLegacyListenEvent(tagged('notifications/resources/updated', { uri: 'u' }), {
        ...all,
        subscribe: false,
      }),
    ).toBeUndefined();
  });

  it('never forwards the acknowledgment, upstream cancellations or other notifications', () => {
    const ack = tagged('notifications/subscriptions/acknowledged', {
      notifications: { toolsListChanged: true },
    });
    expect(toLegacyListenEvent(ack, all)).toBeUndefined();
    expect(
      toLegacyListenEvent(notification('notifications/cancelled', { requestId: 'listen-1' }), all),
    ).toBeUndefined();
    expect(
      toLegacyListenEvent(tagged('notifications/message', { level: 'info', data: 1 }), all),
    ).toBeUndefined();
  });
});

describe('gapReplay', () => {
  it('replays tools, prompts and resources list changes, then one update per URI', () => {
    const events = gapReplay(all, ['file:///a', 'file:///b']);
    expect(events.map((e) => [e.method, e.params])).toEqual([
      ['notifications/tools/list_changed', undefined],
      ['notifications/prompts/list_changed', undefined],
      ['notifications/resources/list_changed', undefined],
      ['notifications/resources/updated', { uri: 'file:///a' }],
      ['notifications/resources/updated', { uri: 'file:///b' }],
    ]);
    for (const event of events) expect(validateLegacyFrame(event, 'toClient')).toEqual([]);
  });

  it('replays only what was declared', () => {
    expect(gapReplay({ ...none, prompts: true }, []).map((e) => e.method)).toEqual([
      'notifications/prompts/list_changed',
    ]);
    expect(gapReplay(none, [])).toEqual([]);
  });

  it('replays only the lists in the set, and every URI', () => {
    const lists = listOfRequest('tools/list') | listOfRequest('resources/templates/list');
    expect(gapReplay(all, ['file:///a'], lists).map((e) => [e.method, e.params])).toEqual([
      ['notifications/tools/list_changed', undefined],
      ['notifications/resources/list_changed', undefined],
      ['notifications/resources/updated', { uri: 'file:///a' }],
    ]);
    expect(gapReplay(all, [], NO_LISTS)).toEqual([]);
    expect(gapReplay(all, [], ALL_LISTS)).toEqual(gapReplay(all, []));
  });
});

describe('listOfRequest', () => {
  it('names the list of each list request, resources/templates/list that of resources', () => {
    expect(listOfRequest('resources/templates/list')).toBe(listOfRequest('resources/list'));
    const lists = ['tools/list', 'prompts/list', 'resources/list'].map(listOfRequest);
    expect(new Set(lists).size).toBe(3);
    expect(lists.reduce((set, list) => set | list, NO_LISTS)).toBe(ALL_LISTS);
    for (const method of ['tools/call', 'resources/read', 'prompts/get', 'completion/complete']) {
      expect(listOfRequest(method)).toBe(NO_LISTS);
    }
  });
});

describe('listenSubscriptionId', () => {
  it('reads the subscription id with its JSON type', () => {
    expect(listenSubscriptionId(tagged('notifications/tools/list_changed', {}, 7))).toBe(7);
    expect(listenSubscriptionId(tagged('notifications/tools/list_changed', {}, '7'))).toBe('7');
  });

  it('is undefined without a valid subscription id', () => {
    expect(listenSubscriptionId(notification('notifications/tools/list_changed'))).toBeUndefined();
    expect(
      listenSubscriptionId(notification('x', { _meta: { 'io.modelcontextprotocol/subscriptionId': null } })),
    ).toBeUndefined();
  });
});
