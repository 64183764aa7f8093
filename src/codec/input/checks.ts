/**
 * The JSON Schema checks the input-request codec needs (docs/input-rounds.md#input-checks, docs/input-rounds.md#input-answer-checks), as a
 * dependency (BridgeDeps.checks): the Node entry passes the ajv ones of schemas.ts, loaded on
 * first use (`ajvInputChecks` of src/node/inputChecks.ts), so that `mcp-bridge-sdk` and
 * `mcp-bridge-sdk/operators` load neither ajv nor the 135 KB 2025-11-25 schema.
 */

/** The definitions of the 2025-11-25 schema the codec checks against. */
export type SpecDefinition =
  | 'ElicitRequestFormParams'
  | 'ElicitRequestURLParams'
  | 'CreateMessageRequestParams'
  | 'ElicitResult'
  | 'CreateMessageResult'
  | 'ListRootsResult';

/** The schema checks of the input rounds. */
export interface InputSchemaChecks {
  /** True when `value` matches the definition `name` of the 2025-11-25 schema. */
  readonly matchesSpec: (name: SpecDefinition, value: unknown) => boolean;
  /** The validator of a form's `requestedSchema`, or undefined when it does not compile. */
  readonly formValidator: (requestedSchema: object) => ((value: unknown) => boolean) | undefined;
}
