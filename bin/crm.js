#!/usr/bin/env node
// Runs the TypeScript sources directly (no build step needed for the CLI).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
