import { describe, expect, it } from 'vitest';
import {
  NO_TIMEOUTS,
  chooseProxy,
  createDispatcher,
  isLoopbackHost,
  noProxyMatches,
} from '../../../src/edges/http/dispatcher.js';

const target = (text: string) => new URL(text);
const PROXY = 'http://127.0.0.1:3128';

describe('proxy selection (docs/http-upstream.md#http-client)', () => {
  it('treats localhost, *.localhost, 127.0.0.0/8 and ::1 as loopback', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'a.localhost',
      '127.0.0.1',
      '127.1.2.3',
      '[::1]',
      'localhost.',
    ]) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of [
      'example.com',
      'localhost.example.com',
      '128.0.0.1',
      '10.0.0.1',
      '[::2]',
      'mylocalhost',
    ]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it('never proxies a loopback host', () => {
    const env = { HTTPS_PROXY: PROXY, ALL_PROXY: PROXY };
    for (const url of [
      'https://127.0.0.1:8443/mcp',
      'https://localhost/mcp',
      'http://[::1]:80/',
      'https://x.localhost/',
    ]) {
      expect(chooseProxy(target(url), env)).toEqual({ kind: 'direct' });
    }
  });

  it('uses HTTPS_PROXY, https_proxy, then ALL_PROXY, all_proxy for https, lowercase first', () => {
    const url = target('https://upstream.test/mcp');
    const proxied = (env: Record<string, string>) => {
      const choice = chooseProxy(url, env);
      return choice.kind === 'proxy' ? [choice.variable, choice.proxy.href] : choice.kind;
    };
    expect(proxied({ HTTPS_PROXY: PROXY })).toEqual(['HTTPS_PROXY', `${PROXY}/`]);
    expect(proxied({ https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:2' })).toEqual([
      'https_proxy',
      'http://a:1/',
    ]);
    expect(proxied({ ALL_PROXY: PROXY })).toEqual(['ALL_PROXY', `${PROXY}/`]);
    expect(proxied({ all_proxy: PROXY })).toEqual(['all_proxy', `${PROXY}/`]);
    expect(proxied({ HTTPS_PROXY: '  ', ALL_PROXY: PROXY })).toEqual(['ALL_PROXY', `${PROXY}/`]);
    expect(proxied({ HTTP_PROXY: PROXY })).toBe('direct');
    expect(proxied({})).toBe('direct');
  });

  it('does not use HTTPS_PROXY for an http URL', () => {
    expect(chooseProxy(target('http://upstream.test/'), { HTTPS_PROXY: PROXY }).kind).toBe('direct');
    expect(chooseProxy(target('http://upstream.test/'), { ALL_PROXY: PROXY }).kind).toBe('proxy');
  });

  it('skips the proxy for hosts that NO_PROXY names', () => {
    const url = target('https://api.example.com:8443/mcp');
    for (const noProxy of [
      '*',
      'api.example.com',
      'example.com',
      '.example.com',
      '*.example.com',
      'other.org, example.com',
      'other.org example.com',
      'API.EXAMPLE.COM',
      'example.com:8443',
    ]) {
      expect(noProxyMatches(noProxy, url)).toBe(true);
      expect(chooseProxy(url, { HTTPS_PROXY: PROXY, NO_PROXY: noProxy }).kind).toBe('direct');
      expect(chooseProxy(url, { HTTPS_PROXY: PROXY, no_proxy: noProxy }).kind).toBe('direct');
    }
    for (const noProxy of ['', 'ample.com', 'other.example.com', 'example.com:443', 'api.example.co']) {
      expect(noProxyMatches(noProxy, url)).toBe(false);
      expect(chooseProxy(url, { HTTPS_PROXY: PROXY, NO_PROXY: noProxy }).kind).toBe('proxy');
    }
  });

  it('matches IP addresses and CIDR ranges of NO_PROXY', () => {
    expect(noProxyMatches('10.1.2.3', target('https://10.1.2.3/'))).toBe(true);
    expect(noProxyMatches('10.0.0.0/8', target('https://10.1.2.3/'))).toBe(true);
    expect(noProxyMatches('10.0.0.0/16', target('https://10.1.2.3/'))).toBe(false);
    expect(noProxyMatches('[fd00::1]:443', target('https://[fd00::1]/'))).toBe(true);
    expect(noProxyMatches('fd00::/8', target('https://[fd00::1]/'))).toBe(true);
    expect(noProxyMatches('3.2.1', target('https://4.3.2.1/'))).toBe(false);
  });

  it('refuses a proxy URL that is not http or https, without repeating it', () => {
    const socks = chooseProxy(target('https://upstream.test/'), {
      HTTPS_PROXY: 'socks5://user:secret@10.0.0.1:1080',
    });
    expect(socks).toEqual({
      kind: 'invalid',
      variable: 'HTTPS_PROXY',
      reason: 'the proxy URL has the scheme socks5; only http and https work',
    });
    const notUrl = chooseProxy(target('https://upstream.test/'), { ALL_PROXY: 'not a url' });
    expect(notUrl).toEqual({ kind: 'invalid', variable: 'ALL_PROXY', reason: 'the value is not a URL' });
  });
});

describe('createDispatcher', () => {
  it('disables the undici body and headers timeouts', () => {
    expect(NO_TIMEOUTS).toEqual({ bodyTimeout: 0, headersTimeout: 0 });
  });

  it('makes a direct agent, a proxy agent, or a reason without the proxy URL', async () => {
    const direct = createDispatcher(target('https://127.0.0.1/'), { env: { HTTPS_PROXY: PROXY } });
    expect(direct).toMatchObject({ ok: true, proxied: false });
    const proxied = createDispatcher(target('https://upstream.test/'), {
      env: { HTTPS_PROXY: 'http://user:pw@127.0.0.1:9' },
      caPem: 'not used before a connection',
    });
    expect(proxied).toMatchObject({ ok: true, proxied: true });
    const refused = createDispatcher(target('https://upstream.test/'), {
      env: { HTTPS_PROXY: 'ftp://user:pw@h/' },
    });
    expect(refused).toEqual({
      ok: false,
      reason: 'HTTPS_PROXY: the proxy URL has the scheme ftp; only http and https work',
    });
    for (const made of [direct, proxied]) if (made.ok) await made.dispatcher.close();
  });
});
