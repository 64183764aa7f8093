/**
 * A mistake on the command line. The message is the text of the diagnostic line
 * `mcp-bridge-vscode: vscode: error: <message>` and never holds an option value, a header value,
 * the upstream URL or an unexpected argument (docs/cli.md#cli-forms).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
