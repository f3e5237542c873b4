/**
 * The Kanban of a big board in a real browser (issue 31: a 200,000-card board on PostgreSQL shows its first cards
 * within 2 s and stays responsive while a column is scrolled).
 *
 *   DATABASE_URL=… npm run bench:seed -- --cards 200000 --contacts 2000 --orgs 1 --boards 1 --fresh
 *   DATABASE_URL=… npx tsx bench/kanban.ts [--loads 5] [--pages 10]
 *
 * Serves the built app (dist/web; built first when missing) from `crm serve` on a loopback port, and drives
 * Debian's Chromium (playwright-core): a session of the seeded organization's owner is put in localStorage (as
 * sign-in leaves it), then each load opens /app/boards/{id} in a fresh context and times the first card in the
 * DOM and every column filled; then "Carregar mais" is pressed in the first column page after page, timing each
 * page and recording the main thread's long tasks (PerformanceObserver 'longtask', > 50 ms) meanwhile: a page
 * that blocks the thread that long is one a person feels while scrolling. Prints a table; loopback only.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { freePort } from '../scripts/cluster/pg-pair.js';
import { sessionSigner } from '../src/platform/auth/tokens.js';
import { queryRows } from '../src/platform/db/client.js';
import { WEB_DIR } from '../src/platform/http/web-app.js';
import { instanceSecret } from '../src/platform/secrets/secrets.js';
import { CHROMIUM, launchBrowser } from '../test/web/helpers.js';
import {
  backendName,
  benchConfig,
  loadAverage,
  numberFlag,
  openBenchDatabase,
  parseFlags,
  percentile,
  readMeta,
  rootDir,
  startServiceProcess,
  stopService,
} from './lib.js';

const flags = parseFlags(process.argv.slice(2));
const LOADS = numberFlag(flags, 'loads', 5);
const PAGES = numberFlag(flags, 'pages', 10);

async function ownerSession() {
  const meta = readMeta();
  const db = await openBenchDatabase(2);
  try {
    const config = benchConfig();
    const [owner] = await queryRows<{ id: number; username: string; email: string; role: string }>(
      db.system,
      sql`select u.id::int as id, u.username, u.email, m.role from memberships m join users u on u.id = m.user_id
          where m.organization_id = ${meta.org.id} order by (m.role = 'owner') desc, m.id limit 1`,
    );
    const [org] = await queryRows<{ name: string; document_id: string }>(
      db.system,
      sql`select name, document_id from organizations where id = ${meta.org.id}`,
    );
    const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
    const session = {
      jwt: await signer.sign(owner.id),
      user: { id: owner.id, username: owner.username, email: owner.email },
      org: { slug: meta.org.slug, name: org.name, role: owner.role, documentId: org.document_id },
    };
    return { meta, session };
  } finally {
    await db.close();
  }
}

async function main() {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  if (!existsSync(join(WEB_DIR, 'index.html'))) {
    const { build } = await import('vite');
    await build({ configFile: join(rootDir, 'web/vite.config.ts'), logLevel: 'error' });
  }
  const { meta, session } = await ownerSession();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const before = loadAverage();
  const service = await startServiceProcess(port, { RATE_LIMIT_ENABLED: 'false', CRM_FROM_SOURCE: '1' });
  const browser = await launchBrowser();
  const url = `${base}/app/boards/${meta.board.documentId}`;
  const phases = meta.board.phases.length;
  const loads: { first: number; all: number }[] = [];
  const pages: { ms: number; cards: number; longTasks: number; longestMs: number }[] = [];
  try {
    const newPage = async () => {
      const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'pt-BR' });
      await ctx.addInitScript((s: string) => {
        localStorage.setItem('crm.session', s);
        const w = window as unknown as { __long: number[] };
        w.__long = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) w.__long.push(e.duration);
        }).observe({ type: 'longtask', buffered: true });
      }, JSON.stringify(session));
      return { ctx, page: await ctx.newPage() };
    };
    for (let i = 0; i < LOADS; i++) {
      const { ctx, page } = await newPage();
      const started = Date.now();
      await page.goto(url, { waitUntil: 'commit' });
      await page.locator('[data-card-id]').first().waitFor({ timeout: 60_000 });
      const first = Date.now() - started;
      await page.waitForFunction(
        (n: number) =>
          [...document.querySelectorAll('.column')].filter((c) => c.querySelector('[data-card-id]')).length >=
          n,
        phases,
        { timeout: 60_000 },
      );
      loads.push({ first, all: Date.now() - started });
      if (i < LOADS - 1) await ctx.close();
      else {
        // Scroll the first column: "load more" page after page, the thread's long tasks counted per page.
        const column = page.locator('.column').first();
        for (let p = 0; p < PAGES; p++) {
          const count = await column.locator('[data-card-id]').count();
          await page.evaluate(() => {
            (window as unknown as { __long: number[] }).__long = [];
          });
          const more = column.locator('button.more');
          if (!(await more.count())) break;
          const t0 = Date.now();
          await more.click();
          await page.waitForFunction(
            ({ n }: { n: number }) =>
              (document.querySelector('.column')?.querySelectorAll('[data-card-id]').length ?? 0) > n,
            { n: count },
            { timeout: 60_000 },
          );
          await column.locator('[data-card-id]').last().scrollIntoViewIfNeeded();
          const ms = Date.now() - t0;
          const long = await page.evaluate(() => (window as unknown as { __long: number[] }).__long);
          pages.push({
            ms,
            cards: await column.locator('[data-card-id]').count(),
            longTasks: long.length,
            longestMs: Math.round(Math.max(0, ...long)),
          });
        }
        await ctx.close();
      }
    }
  } finally {
    await browser.close();
    await stopService(service);
  }
  const cards = meta.counts.cards ?? meta.options.cards;
  console.log(
    `\nKanban in Chromium: ${backendName()}, board of ${cards} cards in ${phases} phases; load average ${before} → ${loadAverage()}\n`,
  );
  console.log('| load | first card (ms) | every column (ms) |');
  console.log('|---|---|---|');
  for (const [i, l] of loads.entries())
    console.log(`| ${i + 1}${i === 0 ? ' (cold)' : ''} | ${l.first} | ${l.all} |`);
  const warm = loads.slice(1).map((l) => l.first);
  if (warm.length) console.log(`| warm median | ${percentile(warm, 0.5)} | |`);
  console.log(
    '\n| "load more" page | time to the new cards (ms) | cards in the column | long tasks | longest (ms) |',
  );
  console.log('|---|---|---|---|---|');
  for (const [i, p] of pages.entries())
    console.log(`| ${i + 1} | ${p.ms} | ${p.cards} | ${p.longTasks} | ${p.longestMs} |`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
