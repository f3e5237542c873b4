#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm install` through the `prepare` script). Without a build, or with
// CRM_FROM_SOURCE=1 (development, the test suite), it runs the TypeScript sources through tsx instead.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli.js', import.meta.url);
if (!process.env.CRM_FROM_SOURCE && existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
