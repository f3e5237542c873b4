#!/usr/bin/env node
// The agent tool server (MCP): compiled (dist/) when built, else the TypeScript sources through tsx, like bin/crm.js.
// Nothing may reach stdout but the protocol: every diagnostic goes to stderr.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/mcp/main.js', import.meta.url);
let entry;
if (!process.env.CRM_FROM_SOURCE && existsSync(compiled)) {
  entry = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = await import('../src/mcp/main.ts');
}
entry.main().catch((err) => {
  process.stderr.write(`crm-mcp: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
