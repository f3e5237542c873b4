import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppDeps } from '../../platform/deps.js';
import { issueToken, register } from '../users/service.js';
import { findOrganizationBySlug } from './repo.js';
import { createOrganization } from './service.js';

export interface DemoCredentials {
  organization: string;
  email: string;
  username: string;
  password: string;
  token: string;
}

/**
 * The demo organization of a first start: an owner user with an API token. The secrets are printed and
 * kept in the data dir (mode 0600) so that later starts can print them again.
 */
export async function ensureDemo(
  deps: AppDeps,
): Promise<{ created: boolean; credentials: DemoCredentials | null }> {
  const file = join(deps.config.CRM_DATA_DIR, 'demo-credentials.json');
  if (await findOrganizationBySlug(deps.db.system, 'demo')) {
    return {
      created: false,
      credentials: existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials) : null,
    };
  }
  const password = randomBytes(9).toString('base64url');
  const username = `demo-${randomBytes(3).toString('hex')}`;
  const email = `${username}@example.com`;
  const { user } = await register(deps, { username, email, password });
  await createOrganization(deps, user.id, { name: 'Demo', slug: 'demo' });
  const { token } = await issueToken(deps, user.id, { expiration: '36500d', name: 'demo token' });
  const credentials = { organization: 'demo', email, username, password, token };
  mkdirSync(deps.config.CRM_DATA_DIR, { recursive: true });
  writeFileSync(file, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return { created: true, credentials };
}
