/**
 * The server capabilities of an upstream with every list and its list changes, resource
 * subscriptions and logging, as a 2024-11-05 client gets them; a 2025-11-25 client gets
 * completions too (docs/lifecycle.md#lifecycle-states). Literal values, never read from src/: the
 * fixture server of the process tests and the rich upstream of test/bridge/revisions.test.ts
 * declare all of them.
 */
export const LISTS_AND_LOGGING = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  logging: {},
};

/** LISTS_AND_LOGGING with completions: what a 2025-11-25 client gets from such an upstream. */
export const EVERY_CAPABILITY = { ...LISTS_AND_LOGGING, completions: {} };
