/**
 * The bridge's command line in the Claude Desktop bundle (docs/install.md#install-mcpb): from the
 * variables the manifest fills with the form's values; a secret stays in a variable.
 */
import { describe, expect, it } from 'vitest';
import { commandWords, mcpbStart } from '../../src/cli/mcpbConfig.js';

describe('mcpbStart', () => {
  it('starts the URL form with the header from its variable, the account, the store and the key', () => {
    expect(
      mcpbStart({
        MCP_BRIDGE_MCPB_UPSTREAM: ' https://mcp.example.com/mcp ',
        MCP_BRIDGE_MCPB_HEADER_NAME: 'X-Api-Key',
        MCP_BRIDGE_MCPB_HEADER_VALUE: 'SECRET-VALUE-1',
        MCP_BRIDGE_MCPB_ACCOUNT: 'work',
        MCP_BRIDGE_MCPB_TOKEN_STORE: 'file',
        MCP_BRIDGE_MCPB_TOKEN_KEY: 'SECRET-KEY-2',
        MCP_BRIDGE_MCPB_LOG_LEVEL: 'debug',
      }),
    ).toEqual({
      kind: 'start',
      argv: [
        '--log-level',
        'debug',
        '--header-env',
        'X-Api-Key=MCP_BRIDGE_MCPB_HEADER_VALUE',
        '--account',
        'work',
        '--token-store',
        'file',
        'https://mcp.example.com/mcp',
      ],
      env: { MCP_BRIDGE_TOKEN_KEY: 'SECRET-KEY-2' },
    });
  });

  it('starts the command form, and leaves out the URL-only fields and the fields left empty', () => {
    expect(
      mcpbStart({
        MCP_BRIDGE_MCPB_UPSTREAM: 'node "/opt/my server/index.js" --port 0',
        MCP_BRIDGE_MCPB_HEADER_NAME: 'Authorization',
        MCP_BRIDGE_MCPB_HEADER_VALUE: 'Bearer SECRET-3',
        MCP_BRIDGE_MCPB_ACCOUNT: '${user_config.account}',
        MCP_BRIDGE_MCPB_LOG_LEVEL: '',
      }),
    ).toEqual({ kind: 'start', argv: ['--', 'node', '/opt/my server/index.js', '--port', '0'], env: {} });
    expect(
      mcpbStart({
        MCP_BRIDGE_MCPB_UPSTREAM: 'https://h.example/mcp',
        MCP_BRIDGE_MCPB_HEADER_NAME: 'Authorization',
        MCP_BRIDGE_MCPB_HEADER_VALUE: '${user_config.header_value}',
        MCP_BRIDGE_MCPB_TOKEN_KEY: '',
      }),
    ).toEqual({ kind: 'start', argv: ['https://h.example/mcp'], env: {} });
  });

  it('refuses a missing upstream', () => {
    const missing = {
      kind: 'error',
      message: 'the upstream server is missing: give its URL or its command in the settings',
    };
    expect(mcpbStart({})).toEqual(missing);
    expect(mcpbStart({ MCP_BRIDGE_MCPB_UPSTREAM: '${user_config.upstream}' })).toEqual(missing);
    expect(mcpbStart({ MCP_BRIDGE_MCPB_UPSTREAM: '   ' })).toEqual(missing);
  });

  it('splits a command at blanks, keeping quoted blanks', () => {
    expect(commandWords(`uvx  'my tool' "a b" c`)).toEqual(['uvx', 'my tool', 'a b', 'c']);
  });
});
