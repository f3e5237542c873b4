import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/platform/db/client.js';

const slug = process.argv[2];
const config = loadConfig(
  { ...process.env, CRM_LOG_LEVEL: 'silent', CRM_DATA_DIR: '/tmp/x' },
  { RATE_LIMIT_ENABLED: false, PUBLIC_URL: 'http://crm.test' },
);
const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: 'memory://' });
const app = await buildApp({ config, db });
const login = await app.inject({
  method: 'POST',
  url: '/api/auth/local',
  payload: { identifier: `${slug}@x.test`, password: 'correct-horse-battery' },
});
const h = {
  authorization: `Bearer ${login.json().jwt}`,
  'x-tenant-id': slug,
  ...(process.env.ENC ? { 'accept-encoding': process.env.ENC } : {}),
};
const url = process.argv[3];
const n = Number(process.argv[4] ?? 500);
for (let i = 0; i < 50; i++) await app.inject({ method: 'GET', url, headers: h });
const { Session } = await import('node:inspector/promises');
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
if (process.env.PROF) await session.post('Profiler.start');
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < n; i++) await app.inject({ method: 'GET', url, headers: h });
const c = process.cpuUsage(c0);
if (process.env.PROF) {
  const { profile } = await session.post('Profiler.stop');
  (await import('node:fs')).writeFileSync('/tmp/req.cpuprofile', JSON.stringify(profile));
}
console.log(
  `${url}: ${((performance.now() - t0) / n).toFixed(2)} ms wall, ${((c.user + c.system) / 1000 / n).toFixed(2)} ms CPU each`,
);
await app.close();
await db.close();
