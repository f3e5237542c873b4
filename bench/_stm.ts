import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/platform/db/client.js';
import { statementMeter } from './lib.js';

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
const h = { authorization: `Bearer ${login.json().jwt}`, 'x-tenant-id': slug };
for (const url of process.argv.slice(3)) {
  for (let i = 0; i < 5; i++) await app.inject({ method: 'GET', url, headers: h });
  process.env.BENCH_STATEMENTS = '1';
  const m = statementMeter();
  m.start();
  const r = await app.inject({ method: 'GET', url, headers: h });
  console.error(`--- ${url} ${r.statusCode}`);
  m.stop();
  delete process.env.BENCH_STATEMENTS;
}
await app.close();
await db.close();
