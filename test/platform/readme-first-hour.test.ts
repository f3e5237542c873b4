import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { getApp, newTenant, testConfig } from '../helpers/app.js';

const run = promisify(execFile);

/** The README's "First hour" walkthrough, run as printed (bash and curl) against a listening service. */
test('the README first-hour commands work as printed', async () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## First hour'));
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  expect(script).toBeTruthy();
  const { db } = await getApp();
  const app = await buildApp({ config: testConfig(), db });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const t = await newTenant(app);
    const token = await t.userApi.post('/users/generate-token', { expiration: '1d' });
    expect(token.status).toBe(201);
    const body = (script as string)
      .replace(/^export API=\S+ TOKEN=\S+/m, `export API=${address}/api TOKEN=${token.body.token}`)
      .replace('x-tenant-id: demo', `x-tenant-id: ${t.slug}`);
    // Each command's answer on its own line, to read them one by one.
    const { stdout } = await run(
      'bash',
      ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${body}`],
      {
        timeout: 60_000,
      },
    );
    const answers = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const [toMeeting, refused, filled, closed, bySegment, byPhase, report] = answers;
    expect(toMeeting.currentPhase.slug).toBe('reuniao');
    expect(refused.error).toMatchObject({ status: 422, details: { missingFields: ['data-reuniao'] } });
    expect(filled.fields['data-reuniao']).toBe('2026-12-01');
    expect(closed.currentPhase.slug).toBe('fechado');
    expect(bySegment.data.map((c: { title: string }) => c.title)).toEqual(['Loja Aurora']);
    expect(byPhase.data).toHaveLength(1);
    expect(report.summary).toMatchObject({ totalCards: 1, totalValue: 12000 });
    expect(answers).toHaveLength(7);
  } finally {
    await app.close();
  }
});
