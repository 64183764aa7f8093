/**
 * Item 5: the bridge's URL form against mcp-remote `--protocol auto`, both on loopback against the
 * cheap HTTP upstream and against the SDK 2.x fixture served by `createMcpHandler`.
 */
import { echoCheck, echoLine } from '../frames.js';
import type { Load } from '../measure.js';
import { bridgeUrl, mcpRemote, startHttpServer } from '../targets.js';
import { interleave, measureCalls, scaled } from './common.js';
import type { CallSizes, Context } from './common.js';

export const HTTP_CHEAP = '4 HTTP (cheap upstream)';
export const HTTP_FIXTURE = '4 HTTP (SDK 2.x fixture)';

const load: Load = { line: (id) => echoLine('legacy', id), check: echoCheck };

export async function http(ctx: Context): Promise<void> {
  const cases: Array<[string, 'cheap' | 'fixture', CallSizes]> = [
    [
      HTTP_CHEAP,
      'cheap',
      { warmup: 300, count: scaled(ctx, 2_000), window: 32, sequential: scaled(ctx, 500), timeoutMs: 60_000 },
    ],
    [
      HTTP_FIXTURE,
      'fixture',
      { warmup: 50, count: scaled(ctx, 300), window: 32, sequential: scaled(ctx, 100), timeoutMs: 60_000 },
    ],
  ];
  for (const [scenario, kind, sizes] of cases) {
    const server = await startHttpServer(kind);
    try {
      const targets = [mcpRemote(server.url), bridgeUrl(server.url)];
      await interleave(ctx, scenario, targets, (opened, target, record) =>
        measureCalls(ctx, scenario, opened, target, load, sizes, record),
      );
    } finally {
      server.close();
    }
  }
}
