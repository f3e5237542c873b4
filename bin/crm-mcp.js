#!/usr/bin/env node
// The agent tool server (MCP). Runs the TypeScript sources directly, like bin/crm.js.
// Nothing may reach stdout but the protocol: every diagnostic goes to stderr.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/mcp/main.ts');
main().catch((err) => {
  process.stderr.write(`crm-mcp: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
