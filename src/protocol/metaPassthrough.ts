/**
 * The rule of what of the client travels upstream, as data (no imports): profiles name it, and the
 * executable's start-up path loads the profiles before any codec (test/package/bundle.test.ts);
 * src/codec/meta.ts applies it.
 */

/**
 * What of the client travels upstream in `_meta` (docs/lifecycle.md#lifecycle-capabilities-upstream–3.3): which keys of
 * a request's own `_meta`, and how much of its `initialize`. A key travels only when it is valid
 * by the `_meta` key grammar, is not `progressToken` (the connection sets that one) and has no
 * prefix that MCP reserves; the bridge's own keys are set after it and always win.
 */
export interface MetaPassthrough {
  /** Exact keys, e.g. `traceparent`; the W3C keys `traceparent`, `tracestate`, `baggage` as strings only. */
  readonly keys: readonly string[];
  /**
   * Key prefixes, e.g. `vscode.`. A key of `keys` or `prefixes` whose prefix has a label `mcp` or
   * `modelcontextprotocol` anywhere is dropped (`vscode.mcp/x`, the reference rule).
   */
  readonly prefixes: readonly string[];
  /**
   * Every other key that 2026-07-28 leaves to a client travels too: any valid key but
   * `progressToken` whose prefix does not have `modelcontextprotocol` or `mcp` as its second
   * label (Codex's `x-codex-turn-metadata`, Claude Code's `claudecode/toolUseId`, `baggage`).
   */
  readonly unreserved: boolean;
  /**
   * `io.modelcontextprotocol/clientInfo` also carries the client's `title`, `description`,
   * `websiteUrl` and `icons` (src/codec/clientInfo.ts); false: only `name` and `version`.
   */
  readonly fullClientInfo: boolean;
  /** A client's `roots.listChanged: true` stays in the upstream capabilities; false: `roots: {}`. */
  readonly rootsListChanged: boolean;
}

/**
 * The reference rule (docs/requests.md#requests-meta), the one of createBridge without a profile and
 * of the VS Code profile: `traceparent`, `tracestate` and valid `vscode.*` keys; `name` and
 * `version` of the client; `roots: {}`.
 */
export const REFERENCE_PASSTHROUGH: MetaPassthrough = Object.freeze({
  keys: Object.freeze(['traceparent', 'tracestate']),
  prefixes: Object.freeze(['vscode.']),
  unreserved: false,
  fullClientInfo: false,
  rootsListChanged: false,
});
