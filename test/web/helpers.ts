import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { WEB_DIR } from '../../src/platform/http/web-app.js';
import { times } from '../helpers/built.js';

/**
 * Chromium for the end-to-end tests: Debian's `chromium` (installed by .ci/run), driven by playwright-core.
 * Without it the web tests are skipped with a message. CRM_CHROMIUM_PATH points elsewhere.
 */
export const CHROMIUM = process.env.CRM_CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(
    `test/web: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CRM_CHROMIUM_PATH)`,
  );

export const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts/web');

const ROOT = join(import.meta.dirname, '../..');

/** Whether a process runs (a pid of 0 or NaN: a lock just made, its pid not written yet, counts as running). */
function alive(pid: number): boolean {
  if (!pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid written in a lock directory; 0 when there is none (yet). */
function lockPid(lock: string): number {
  try {
    return Number(readFileSync(join(lock, 'pid'), 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/**
 * The built app (dist/web): built now when missing or older than web/ (npm install builds it too). Test files run
 * in parallel workers: one builds while the others wait on a lock directory (a build empties dist/web first, so a
 * second build would pull the pages from under a test already serving them).
 */
export async function ensureWebBuild() {
  const index = join(WEB_DIR, 'index.html');
  const fresh = () =>
    existsSync(index) && statSync(index).mtimeMs >= Math.max(0, ...times(join(ROOT, 'web')));
  if (fresh()) return;
  const lock = join(ROOT, 'dist/.web-build.lock');
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      // A lock whose process is gone was left by a killed run.
      if (!alive(lockPid(lock))) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (fresh()) return;
    const { build } = await import('vite');
    await build({ configFile: join(ROOT, 'web/vite.config.ts'), logLevel: 'error' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * A headless Chromium (flags that keep it from reaching out on a closed network). playwright-core gives every
 * launch a fresh temporary profile (--user-data-dir) and removes it on close; each context has its own storage.
 */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** A fresh visitor: its own cookies and storage, a desktop viewport, Brazilian locale and time zone. */
/** How a test page is opened: a 1400 × 900 desktop, or `phone` (a 390 × 844 touch screen). */
export interface PageOptions {
  phone?: boolean;
  acceptDownloads?: boolean;
}

/** A page in pt-BR on São Paulo time, in a context of its own. */
export async function newPage(browser: Browser, opts: PageOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: opts.phone ? { width: 390, height: 844 } : { width: 1400, height: 900 },
    ...(opts.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
    acceptDownloads: opts.acceptDownloads,
  });
  // A step that has not happened in 10 s will not: fail fast (the whole file stays about a minute).
  context.setDefaultTimeout(10_000);
  return context.newPage();
}

/** A new page signed in as `user` through the sign-in form, in organization `slug`: on its boards. */
export async function signedInPage(
  browser: Browser,
  base: string,
  user: { email: string; password: string },
  slug: string,
  opts: PageOptions = {},
): Promise<Page> {
  const p = await newPage(browser, opts);
  await p.goto(`${base}/app/`);
  await p.fill('input[type=email]', user.email);
  await p.fill('input[type=password]', user.password);
  await p.click('button[type=submit]');
  await p.click(`button[data-org="${slug}"]`);
  await p.getByRole('heading', { name: 'Quadros' }).waitFor();
  return p;
}

/**
 * Console errors and uncaught exceptions of a page. Chromium itself logs every HTTP error answer as "Failed to
 * load resource"; the statuses a test expects (a refused move's 422, another organization's 404) are passed.
 */
export function watchConsole(page: Page, expectedStatuses: number[] = []) {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(m.text())?.[1];
    if (status && expectedStatuses.includes(Number(status))) return;
    errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/**
 * The page's API requests, for a failure's message: those still waiting for an answer (with their age) and the
 * last ones answered (status and time). A step that "did not happen" then says whether the page was still waiting
 * for the service, got an error, or never asked.
 */
const watched = new WeakMap<Page, () => string>();

/** What watchRequests saw on this page, for a failure's message. */
export const requestsSeen = (page: Page) => watched.get(page)?.() ?? 'requests not watched';

export function watchRequests(page: Page) {
  const started = new Map<Request, number>();
  const done: string[] = [];
  const api = (r: Request) => new URL(r.url()).pathname.startsWith('/api/');
  const label = (r: Request) => {
    const u = new URL(r.url());
    return `${r.method()} ${u.pathname}${u.search.length > 60 ? `${u.search.slice(0, 60)}…` : u.search}`;
  };
  page.on('request', (r) => {
    if (api(r)) started.set(r, Date.now());
  });
  const finish = async (r: Request, failure?: string) => {
    const at = started.get(r);
    if (at === undefined) return;
    started.delete(r);
    const status = failure ?? String((await r.response().catch(() => null))?.status() ?? '?');
    done.push(`${label(r)} → ${status} in ${Date.now() - at} ms`);
    if (done.length > 12) done.shift();
  };
  page.on('requestfinished', (r) => void finish(r));
  page.on('requestfailed', (r) => void finish(r, `failed (${r.failure()?.errorText ?? '?'})`));
  const describe = () => {
    const now = Date.now();
    const pending = [...started].map(([r, at]) => `${label(r)} waiting ${now - at} ms`);
    return `in flight: ${pending.join('; ') || 'none'}. Last answered: ${done.join('; ') || 'none'}`;
  };
  watched.set(page, describe);
  return describe;
}

/**
 * A screenshot into test-artifacts/web, when CRM_WEB_SHOTS=1 (the images of docs/web-app.md are taken from there):
 * about 0.3 s each and some 140 a pass, so the suite (and CI) runs without them.
 */
export const shot = (page: Page, name: string) =>
  process.env.CRM_WEB_SHOTS === '1'
    ? page.screenshot({ path: join(ARTIFACTS, `${name}.png`) }).catch(() => undefined)
    : Promise.resolve(undefined);

/**
 * Drags a card with the mouse onto a column (dnd-kit starts a drag after the pointer moved 6 px), released at the
 * column's middle or at `at` (page coordinates).
 */
export async function dragTo(page: Page, cardId: string, phaseId: string, at?: { x: number; y: number }) {
  const card = page.locator(`[data-card-id="${cardId}"]`);
  await card.scrollIntoViewIfNeeded();
  const from = (await card.boundingBox())!;
  const to = (await page.locator(`[data-phase-id="${phaseId}"]`).boundingBox())!;
  const end = at ?? { x: to.x + to.width / 2, y: to.y + 120 };
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 12, from.y + from.height / 2, { steps: 3 });
  await page.mouse.move(end.x, end.y, { steps: 12 });
  // A moment at the drop point, as a person's hand gives it (the board would scroll now if it were to).
  await page.waitForTimeout(300);
  await page.mouse.up();
}
