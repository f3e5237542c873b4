import { type Config, loadConfig } from '../config.js';

/**
 * Settings whose values are credentials (or connection URLs that may carry a password): `crm config check` says
 * that they are set, never what they are.
 */
const SECRET =
  /_(SECRET|TOKEN|PASSWORD|BEARER)$|^CRM_ENCRYPTION_KEY$|^(DATABASE|DATABASE_DIRECT|DATABASE_REPLICA|REDIS|SMTP)_URL$/;

/**
 * `crm config check`: the environment validated as `crm serve` would (every error at once, exit 1), or the
 * settings in effect (credentials and URLs that may carry passwords shown as set/unset; exit 0).
 */
export function checkConfig(env: NodeJS.ProcessEnv): number {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
  const lines = Object.entries(config)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `  ${k}=${SECRET.test(k) ? '(set)' : show(v)}`);
  console.log(
    `Configuration is valid (${config.DATABASE_URL ? 'PostgreSQL' : `embedded database in ${config.CRM_DATA_DIR}/db`}):\n${lines.join('\n')}`,
  );
  return 0;
}

const show = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v));
