import { readFileSync } from 'node:fs';

/**
 * The software version (package.json), shown by `crm --version`, `/api/health` and the agent server's server info.
 * The interface version (the contract's 1.0) is the OpenAPI document's `info.version`, not this.
 */
export const SOFTWARE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;
