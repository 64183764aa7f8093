/**
 * The safe code of a Node or undici error, in a file of its own (no RxJS): the SSE reader
 * (sse.ts), the connection failures (connectFailure.ts) and `doctor` (src/cli/doctor) name
 * errors by it, never by their message.
 */

/** A stable, safe code of a Node or undici error: never its message (which may name the host). */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code)) return code;
  return error instanceof Error && /^[A-Za-z]{1,64}$/.test(error.name) ? error.name : 'Error';
}
