import { describe, expect, it } from 'vitest';
import { upstreamClientInfo } from '../../src/codec/clientInfo.js';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

describe('upstreamClientInfo', () => {
  const info = {
    name: 'claude-code',
    version: '2.0.1',
    title: 'Claude Code',
    description: 'An agentic coding tool',
    websiteUrl: 'https://example.com/claude-code',
    icons: [
      { src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' },
      { src: PNG, extra: 1 },
    ],
    extra: 'x',
  };

  it('passes name and version only without full (the reference rule)', () => {
    expect(upstreamClientInfo(info, false, false)).toEqual({ name: 'claude-code', version: '2.0.1' });
  });

  it('passes title, description, websiteUrl and the icons with full, without unknown members', () => {
    expect(upstreamClientInfo(info, true, false)).toEqual({
      name: 'claude-code',
      version: '2.0.1',
      title: 'Claude Code',
      description: 'An agentic coding tool',
      websiteUrl: 'https://example.com/claude-code',
      icons: [
        { src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' },
        { src: PNG },
      ],
    });
  });

  it('passes only data: icons to a remote upstream', () => {
    expect(upstreamClientInfo(info, true, true)['icons']).toEqual([{ src: PNG }]);
    const httpsOnly = { name: 'c', version: '1', icons: [{ src: 'file:///home/me/icon.png' }] };
    expect(upstreamClientInfo(httpsOnly, true, true)).toEqual({ name: 'c', version: '1' });
  });

  it('leaves out members of the wrong type and icons that are not valid', () => {
    expect(
      upstreamClientInfo(
        {
          name: '',
          version: 3,
          title: 1,
          websiteUrl: null,
          icons: [{ src: 1 }, 'x', { src: '' }, { src: PNG, sizes: [48], theme: 'blue', mimeType: 2 }],
        },
        true,
        false,
      ),
    ).toEqual({ name: 'unknown-client', version: '0.0.0', icons: [{ src: PNG }] });
    expect(upstreamClientInfo({ name: 'c', version: '1', icons: 'x' }, true, false)).toEqual({
      name: 'c',
      version: '1',
    });
    expect(upstreamClientInfo(undefined, true, false)).toEqual({ name: 'unknown-client', version: '0.0.0' });
  });

  it('keeps at most 8 icons, each with a src of at most 8192 characters', () => {
    const icons = [{ src: `data:image/png;base64,${'A'.repeat(8_192)}` }];
    for (let i = 0; i < 10; i++) icons.push({ src: `${PNG}${i}` });
    const shaped = upstreamClientInfo({ name: 'c', version: '1', icons }, true, false)['icons'];
    expect(shaped).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({ src: `${PNG}${i}` })));
  });
});
