/**
 * The longest delay a timer can have. Node fires a timer above 2^31-1 ms at once (and warns), so
 * every time limit of the bridge is capped here: a longer limit is no limit in practice.
 * One home for the operators' time limit (operators/internal/timeLimit.ts), the lanes of the
 * bridge (src/bridge/laneScheduler.ts) and the limits embedded mode turns off (src/embed/legacyPath.ts).
 */

/** 2^31-1 ms, about 24.8 days. */
export const MAX_TIMER_MS = 2_147_483_647;
