/**
 * Item 7: start-up, from spawn to the `initialize` result (the bridge's includes starting its
 * upstream and its `server/discover`). Every spawn is one sample.
 */
import { START } from '../report.js';
import {
  bridgeEcho,
  bridgeFixture,
  bridgeUrl,
  dualEra,
  mcpRemote,
  spawnerFloor,
  startHttpServer,
  trivialInit,
} from '../targets.js';
import { interleave } from './common.js';
import type { Context } from './common.js';

export const START_STDIO = '6 start-up stdio';
export const START_HTTP = '6 start-up HTTP (cheap upstream)';

export async function startup(ctx: Context): Promise<void> {
  const more: Context = {
    ...ctx,
    settings: { ...ctx.settings, runs: ctx.settings.runs * ctx.settings.startsPerRun },
  };
  const stdio = [
    dualEra(),
    trivialInit(),
    spawnerFloor(),
    { ...bridgeFixture(), name: 'bridge → fixture' },
    { ...bridgeEcho(), name: 'bridge → echo' },
  ];
  await interleave(
    more,
    START_STDIO,
    stdio,
    (opened, target, record) => {
      if (record) ctx.rec.add(START_STDIO, START, target.name, opened.startMs);
      return Promise.resolve();
    },
    true,
  );
  const server = await startHttpServer('cheap');
  try {
    await interleave(
      more,
      START_HTTP,
      [mcpRemote(server.url), bridgeUrl(server.url)],
      (opened, target, record) => {
        if (record) ctx.rec.add(START_HTTP, START, target.name, opened.startMs);
        return Promise.resolve();
      },
      true,
    );
  } finally {
    server.close();
  }
}
