/**
 * The icon rule of a remote upstream (docs/results.md#results-icons, docs/testing.md#testing-https): over HTTP only
 * `data:` icons reach the client, everywhere icons occur; an `icons` array left empty disappears.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killAllPeers } from '../helpers/rawPeer.js';
import { startCheapHttpUpstream } from '../fixtures/cheapHttpUpstream.js';
import type { CheapHttpUpstream } from '../fixtures/cheapHttpUpstream.js';
import { ICONS } from '../fixtures/cheapHttpTools.js';
import { call, callTool, endAndExit, handshake, startUrlBridge } from './httpSupport.js';

let upstream: CheapHttpUpstream | undefined;

afterEach(async () => {
  await killAllPeers();
  await upstream?.close();
  upstream = undefined;
});

const DATA_ONLY = ICONS.filter((icon) => typeof icon['src'] === 'string' && icon['src'].startsWith('data:'));

type Item = { name?: string; icons?: unknown };
const byName = (items: Item[], name: string): Item => items.find((item) => item.name === name) ?? {};

describe('icons of a remote upstream', () => {
  it('only data: icons of serverInfo, tools, prompts, resources and resource_link blocks reach the client', async () => {
    expect(DATA_ONLY).toHaveLength(1);
    upstream = await startCheapHttpUpstream({ icons: true });
    const peer = startUrlBridge(upstream.url);
    const init = await handshake(peer);
    expect(init).toHaveProperty('result.serverInfo.icons', DATA_ONLY);

    const tools = (await call(peer, 'tools/list'))['result'] as { tools: Item[] };
    expect(byName(tools.tools, 'iconic').icons).toEqual(DATA_ONLY);
    expect(byName(tools.tools, 'remote_iconic')).not.toHaveProperty('icons');
    expect(byName(tools.tools, 'echo')).not.toHaveProperty('icons');

    const prompts = (await call(peer, 'prompts/list'))['result'] as { prompts: Item[] };
    expect(byName(prompts.prompts, 'greet').icons).toEqual(DATA_ONLY);
    const resources = (await call(peer, 'resources/list'))['result'] as { resources: Item[] };
    expect(byName(resources.resources, 'a').icons).toEqual(DATA_ONLY);

    const link = await callTool(peer, 'link');
    expect(link).toMatchObject({
      result: { content: [{ type: 'resource_link', uri: 'mem://linked', icons: DATA_ONLY }] },
    });
    const prompt = await call(peer, 'prompts/get', { name: 'greet' });
    expect(prompt).toMatchObject({
      result: {
        messages: [{ content: { type: 'text' } }, { content: { type: 'resource_link', icons: DATA_ONLY } }],
      },
    });
    // No other icon source reached stdout.
    expect(peer.lines.filter((line) => /https:\/\/icons|file:\/\/\/usr|HTTP:\/\/icons/.test(line))).toEqual(
      [],
    );
    expect(await endAndExit(peer)).toBe(0);
  });
});
