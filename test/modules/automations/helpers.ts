import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { dispatchOrganization } from '../../../src/events.js';
import { runDue } from '../../../src/modules/automations/runner.js';
import { queryRows } from '../../../src/platform/db/client.js';
import type { Jobs } from '../../../src/platform/jobs/jobs.js';
import { createBackground } from '../../../src/workers.js';
import { getApp, type Tenant, testConfig } from '../../helpers/app.js';
import { createWhatsAppChannel, type MessagingEnv } from '../../helpers/messaging.js';

export interface Received {
  url: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on loopback: records what it gets; `/redirect` answers a redirect to the metadata address. */
export async function receiver(status: (n: number) => number = () => 200) {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      if (req.url === '/redirect') {
        res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        return;
      }
      if (req.url === '/redirect-local') {
        res.writeHead(302, { location: 'http://10.0.0.1/' }).end();
        return;
      }
      res.writeHead(status(got.length), { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { got, url, close: () => new Promise((r) => server.close(r)) };
}

/** A WhatsApp channel of the tenant whose one approved template `name` (pt_BR, body "Oi") is synced: its documentId. */
export async function channelWithTemplate(env: MessagingEnv, t: Tenant, name: string, id: string) {
  const channel = (await createWhatsAppChannel(t.api, env)).documentId as string;
  env.wa.templates.set(`${name}|pt_BR`, {
    id,
    name,
    language: 'pt_BR',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Oi' }],
  });
  await t.api.post(`/chat-channels/${channel}/templates/sync`);
  return channel;
}

export const allowLoopback = () => testConfig({ CRM_OUTBOUND_ALLOWLIST: '127.0.0.1' });

/**
 * The background work of a file's organizations, run by hand: the dispatcher (events → runs), then the runner,
 * until nothing is left to do (bounded). A shared database holds other files' events: only ours are taken.
 */
export function automationWorld() {
  const orgIds = new Set<number>();
  let jobs: Jobs | undefined;
  return {
    orgIds,
    async track(tenant: Tenant) {
      const { db } = await getApp();
      const [row] = await queryRows<{ id: number }>(
        db.system,
        sql`select id from organizations where slug = ${tenant.slug}`,
      );
      orgIds.add(Number(row.id));
      return { ...tenant, orgId: Number(row.id) };
    },
    async cycle(config = allowLoopback(), rounds = 6) {
      const { db } = await getApp();
      if (!jobs) {
        // Every queue registered (a task reminder is scheduled on one), nothing worked: the test runs the passes.
        jobs = (await createBackground(config, db)).jobs;
        await jobs.start({ workers: false });
      }
      let total = 0;
      for (let i = 0; i < rounds; i++) {
        let n = 0;
        for (const orgId of orgIds) n += await dispatchOrganization(db, orgId);
        n += await runDue({ db, config, jobs }, undefined, orgIds);
        total += n;
        if (n === 0) break;
      }
      return total;
    },
    async close() {
      await jobs?.stop();
    },
  };
}
