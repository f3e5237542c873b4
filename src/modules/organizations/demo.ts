import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SeedResult, seedDemoData } from '../../demo/seed.js';
import type { AppDeps } from '../../platform/deps.js';
import { issueToken, register } from '../users/index.js';
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
 * The demo organization of a first start: an owner user with an API token, then its content (src/demo/). The
 * secrets are printed and kept in the data dir (mode 0600) so that later starts can print them again.
 */
export async function ensureDemo(deps: AppDeps): Promise<{
  created: boolean;
  credentials: DemoCredentials | null;
  board: SeedResult['board'];
  seeded: boolean;
}> {
  const file = join(deps.config.CRM_DATA_DIR, 'demo-credentials.json');
  const existing = await findOrganizationBySlug(deps.db.system, 'demo');
  if (existing) {
    // An existing demo is filled if it is not yet (an older version made it empty; the seed is all or nothing).
    const { seeded, board } = await seedDemoData(deps, existing);
    return {
      created: false,
      credentials: existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials) : null,
      board,
      seeded,
    };
  }
  const password = randomBytes(9).toString('base64url');
  const username = `demo-${randomBytes(3).toString('hex')}`;
  const email = `${username}@example.com`;
  const { user } = await register(deps, { username, email, password });
  // The business plan whatever CRM_DEFAULT_PLAN says: the demo shows every feature (quotes included).
  const { org } = await createOrganization(deps, user.id, { name: 'Demo', slug: 'demo', plan: 'business' });
  const { token } = await issueToken(deps, user.id, { expiration: '36500d', name: 'demo token' });
  const credentials = { organization: 'demo', email, username, password, token };
  mkdirSync(deps.config.CRM_DATA_DIR, { recursive: true });
  writeFileSync(file, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  const { seeded, board } = await seedDemoData(deps, org);
  return { created: true, credentials, board, seeded };
}
