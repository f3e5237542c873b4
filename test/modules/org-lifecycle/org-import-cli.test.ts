import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { writeOrganizationArchive } from '../../../src/modules/org-lifecycle/export-writer.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant } from '../../helpers/app.js';

const run = promisify(execFile);
const bin = join(import.meta.dirname, '../../../bin/crm.js');

async function crm(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env: { ...process.env, DATABASE_URL: '', CRM_LOG_LEVEL: 'silent', ...env },
      timeout: 150_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

describe('crm org import', () => {
  it('loads an export into an embedded database, refuses it a second time, and the created user gets a password', async () => {
    const { db, config } = await getApp();
    const t = await newTenant();
    await t.api.post('/contacts', { data: { name: 'Pessoa' } });
    const [org] = await queryRows<{ id: number }>(
      db.system,
      sql`select id from organizations where slug = ${t.slug}`,
    );
    const file = join(mkdtempSync(join(tmpdir(), 'crm-org-')), 'org.tar.gz');
    const out = createWriteStream(file);
    await writeOrganizationArchive(db, config, org!.id, out);
    const dataDir = mkdtempSync(join(tmpdir(), 'crm-org-target-'));
    const env = { CRM_DATA_DIR: dataDir };
    const first = await crm(['org', 'import', file], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`Imported organization ${t.slug}`));
    expect(first.stdout).toContain(t.user.email);
    const again = await crm(['org', 'import', file], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    const missing = await crm(['org', 'import'], env);
    expect(missing.code).toBe(2);
    const pw = await crm(
      ['user', 'password', '--email', t.user.email, '--password', 'another-secret-1'],
      env,
    );
    expect(pw.code).toBe(0);
  }, 300_000);
});
