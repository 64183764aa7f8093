/**
 * Embedded mode as one operator (docs/embedded.md#embedded-selection): the lines of one stdio connection
 * in, the frames for the client out. The first request selects the path: `initialize` the
 * 2025-11-25 front end of the bridge, anything else the server's own 2026-07-28 transport.
 */
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { connect, defer, filter, map, merge, takeWhile } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import { serveLegacy } from './legacyPath.js';
import type { LegacyPathConfig } from './legacyPath.js';
import { serveModern } from './modernPath.js';
import { flatRoute } from './flatRoute.js';
import { classifyOpening } from './opening.js';
import type { SelectedEra } from './opening.js';
import { whenFirst } from './whenFirst.js';

/** The settings of the legacy path (limits, line limits, fallback identity), plus the discover rule. */
export interface DualEraConfig extends Omit<LegacyPathConfig, 'factory'> {
  /** `server/discover` before any other request: answered by the server, or -32601. */
  readonly discover: 'answer' | 'refuse';
}

/** A frame for the client, or the path the connection took (once, before its first frame). */
export type DualEraOutput =
  | { readonly kind: 'era'; readonly era: Exclude<SelectedEra, 'none'> }
  | { readonly kind: 'frame'; readonly frame: Frame };

type Step = DualEraOutput | { readonly kind: 'legacy' | 'modern'; readonly inbound: Inbound };

// Per message: a filter and a map, no inner subscription.
const inboundFor =
  (path: 'legacy' | 'modern'): OperatorFunction<Step, Inbound> =>
  (step$) =>
    step$.pipe(
      filter((step): step is Extract<Step, { readonly inbound: Inbound }> => step.kind === path),
      map((step) => step.inbound),
    );

const asOutput: OperatorFunction<Frame, DualEraOutput> = map((frame) => ({ kind: 'frame', frame }));

/**
 * Serves one connection in the era its first request selects.
 *
 * ```text
 * lines:  -d-i-n-r-|      d server/discover, i initialize, n notification, r request
 * output: -D-EI----R|     D the DiscoverResult (or -32601), E era 'legacy', I the 2025-11-25 result
 * ```
 *
 * Rules (docs/embedded.md#embedded-selection, test/embed):
 * 1. a request with the method `initialize` first selects the legacy path.
 * 2. `server/discover` first selects no path: the server answers it, or with `discover:
 *    'refuse'` it gets -32601 `method_not_found`; the selection goes on with the next line.
 * 3. anything else first selects the modern path, and the server gets that frame first.
 * 4. blank lines and a line above the line limit select nothing and get no response.
 * 5. after the selection, every line goes to the selected path.
 * 6. a server that answered `server/discover` before the legacy path was selected stops after
 *    its answers, within the grace.
 * 7. at the end of the input without a path nothing more is written.
 */
export function dualEra(
  factory: McpServerFactory,
  config: DualEraConfig,
): OperatorFunction<Inbound, DualEraOutput> {
  const { limits, logger, scheduler } = config;
  const legacy = serveLegacy({ ...config, factory });
  const modern = serveModern({
    factory,
    maxInFlight: limits.maxInFlight,
    shutdownGraceMs: limits.shutdownGraceMs,
    logger,
    scheduler,
  });
  return (inbound$) =>
    defer(() => {
      let era: SelectedEra = 'none'; // per connection
      const route = (inbound: Inbound): Step[] => {
        if (era !== 'none') return [{ kind: era, inbound }];
        switch (classifyOpening(inbound)) {
          case 'skip':
            if (inbound.kind === 'bad') {
              logger.log('embed', 'warn', 'dropped a first line that is longer than the line limit');
            }
            return [];
          case 'discover':
            if (config.discover === 'answer') return [{ kind: 'modern', inbound }];
            return [{ kind: 'frame', frame: bridgeErrorFrame(requestId(inbound), 'method_not_found') }];
          case 'legacy':
            era = 'legacy';
            return [
              { kind: 'era', era },
              { kind: 'legacy', inbound },
            ];
          case 'modern':
            era = 'modern';
            return [
              { kind: 'era', era },
              { kind: 'modern', inbound },
            ];
        }
      };
      return inbound$.pipe(
        flatRoute(route),
        connect((step$) =>
          merge(
            step$.pipe(filter((step): step is DualEraOutput => step.kind === 'era' || step.kind === 'frame')),
            // The server of the modern path also answers the discovers of the selection; when the
            // legacy path is selected its input ends, so it stops after those answers.
            step$.pipe(
              takeWhile((step) => !(step.kind === 'era' && step.era === 'legacy')),
              inboundFor('modern'),
              whenFirst(modern),
              asOutput,
            ),
            step$.pipe(inboundFor('legacy'), whenFirst(legacy), asOutput),
          ),
        ),
      );
    });
}

const requestId = (inbound: Inbound): string | number | null =>
  inbound.kind === 'frame' && 'id' in inbound.frame ? inbound.frame.id : null;
