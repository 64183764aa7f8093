#!/usr/bin/env node
/**
 * The executable `mcp-bridge`: the CLI of `mcp-bridge-vscode` (main.ts) with the generic profile
 * (src/profiles/generic.ts) for any MCP 2025-11-25 client.
 */
import { genericProfile } from '../profiles/generic.js';
import { selectProfile } from './entryProfile.js';

selectProfile(genericProfile);
await import('./main.js');
