/**
 * The texts of `--help` and of the usage lines printed after a diagnostic
 * (reference-behaviors.md §8). Both end without a newline; main() adds it.
 */

export const USAGE_TEXT = [
  'Usage: mcp-bridge-vscode [options] -- <command> [args...]',
  '       mcp-bridge-vscode [options] <url>',
  'Run "mcp-bridge-vscode --help" for the options.',
].join('\n');

export const HELP_TEXT = `Usage: mcp-bridge-vscode [options] -- <command> [args...]
       mcp-bridge-vscode [options] <url>

Connects VS Code (MCP 2025-11-25 on stdin and stdout) to an upstream server that speaks
MCP 2026-07-28: a command started as a child process (everything after "--" is the command
and its arguments, unchanged), or a Streamable HTTP server at <url>. The URL must be https,
or http for a loopback host (localhost, *.localhost, 127.0.0.0/8, [::1]); it must not hold a
user name, a password or a fragment.

Options come before the URL or "--". Write "--opt value" or "--opt=value". When an option is
given more than once, the last one wins, except --header and --header-env, which add up.

Options:
  --name <name>              server name shown to VS Code when the upstream gives none
                             (default: the command's file name without extension, or the
                             host of the URL)
  --log-level <level>        err, warn, info or debug; logs go to stderr (default: info)
  --discover-timeout <s>     seconds to wait for server/discover, 1 to 4294967295
                             (default: 60)
  --max-line-bytes <n>       longest line accepted, in bytes, 1 to 1073741824
                             (default: 67108864)
  --help                     print this help and exit
  --version                  print the version and exit

Options for a URL only:
  --header <name>:<value>    send this header on every request (repeatable; default: none).
                             The value is visible on the command line: for secrets, use
                             --header-env
  --header-env <name>=<VAR>  send this header with the value of the environment variable
                             VAR (repeatable; default: none)
  --max-response-bytes <n>   largest JSON response or SSE event, in bytes, 1 to 1073741824
                             (default: 67108864)
  --ca-file <path>           PEM file of CA certificates trusted besides the system ones
                             (default: none)

Headers the bridge or the HTTP client sets (Host, Accept, Content-Type, Mcp-*, ...) and
Proxy-Authorization cannot be given.

Environment:
  HTTPS_PROXY, https_proxy   proxy for the upstream server (http://[user:password@]host:port)
  ALL_PROXY, all_proxy       proxy when HTTPS_PROXY is not set
  NO_PROXY                   hosts that are not proxied (loopback hosts never are)
  <VAR> of --header-env      header values; must be set and not empty

Exit status:
  0  stdin ended, or --help or --version
  1  the upstream command stopped, or an internal error
  2  invalid arguments, a missing --header-env variable, or an unusable --ca-file`;
