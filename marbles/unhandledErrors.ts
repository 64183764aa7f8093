/**
 * What RxJS reports as unhandled while `body` runs: a throw that no subscriber's error channel
 * took (a callback that throws inside a plain observer's `next`, for example). Without this hook,
 * RxJS rethrows it from a timer, which becomes an uncaught exception of the process. Marble tests
 * of throwing callbacks assert that this list is empty: the throw ended where the operator's doc
 * says, not outside every stream.
 */
import { config } from 'rxjs';

export function unhandledErrorsOf(body: () => void): unknown[] {
  const reported: unknown[] = [];
  const previous = config.onUnhandledError;
  config.onUnhandledError = (error: unknown) => reported.push(error);
  try {
    body();
  } finally {
    config.onUnhandledError = previous;
  }
  return reported;
}
