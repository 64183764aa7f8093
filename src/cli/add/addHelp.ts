/** The `add --help` text (docs/install.md#install-add); it ends without a newline. */
import { CLIENTS } from './clients.js';

export const addHelpText = (
  program: string,
): string => `Usage: ${program} add <client> [options] -- <command> [args...]
       ${program} add <client> [options] <url>

Adds the bridge, with the upstream server given as for ${program} itself, to the settings of an
MCP client, in the client's own file and format: ${CLIENTS.join(', ')}.
Other keys and comments of the file stay. Secrets never go into the file: give headers with
--header-env <name>=<VAR>, and the entry passes the variable VAR on by name.

Options:
  --name <name>          the name of the entry, 1 to 64 of A-Z a-z 0-9 _ -, starting with a
                         letter (default: the command's file name, or the host of the URL)
  --scope <scope>        user (the client's file for you) or project (the file in the
                         current folder); claude-desktop has user only
                         (default: user)
  --force                replace a different entry of the same name
  --print                print the entry instead of writing it
  --bridge <path>        the bridge executable the client starts (default: this single
                         executable, else npx with this version of mcp-bridge-sdk)
  --pass-env <VAR>       pass the variable VAR on to the bridge too (repeatable), for
                         MCP_BRIDGE_TOKEN_KEY, MCP_BRIDGE_CLIENT_SECRET or a proxy
  --help                 print this help and exit
The options of the bridge (--log-level, --header-env, --account, --token-store, ...) go into
the entry; --header is refused, as it would write its value into the file.

Files (user scope, then project scope):
  vscode          Code/User/mcp.json in APPDATA, ~/Library/Application Support or
                  XDG_CONFIG_HOME (~/.config); .vscode/mcp.json
  claude-code     ~/.claude.json (CLAUDE_CONFIG_DIR); .mcp.json
  claude-desktop  Claude/claude_desktop_config.json in APPDATA, ~/Library/Application
                  Support or XDG_CONFIG_HOME (~/.config)
  codex           ~/.codex/config.toml (CODEX_HOME); .codex/config.toml
  gemini          ~/.gemini/settings.json; .gemini/settings.json
  copilot         ~/.copilot/mcp-config.json (COPILOT_HOME); .github/mcp.json

Exit status:
  0  the entry was written, was there already, or was printed
  1  another entry has the name (give --force), or the file cannot be read, merged or written
  2  invalid arguments`;
