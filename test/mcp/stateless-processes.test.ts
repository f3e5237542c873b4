import type { FetchLike } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newOrg, type Org, runToExit, type Service, startHttpMcp, startService } from './harness.js';
import { callModern, connectModernHttp, isInputRequiredResult, round } from './modern-harness.js';

/**
 * The 2026-07-28 era with several agent-server processes (issue 32 item 1): two HTTP servers on loopback with
 * the same MCP_CRM_STATE_SECRET answer alternate requests of one client; a confirmation started on one ends on
 * the other; an approved requestState replayed does not write twice; a state cannot be forged, moved to
 * another call or to another person.
 */

const SECRET = 'a-state-secret-shared-by-both-processes-0123456789';

let service: Service;
let org: Org;
let other: Org;
type Mcp = Awaited<ReturnType<typeof startHttpMcp>>;
let a: Mcp;
let b: Mcp;
let stranger: Mcp;

/** Multi-user servers: each client brings its token and organization. */
const multiUser = (secret: string) => ({
  PATH: process.env.PATH ?? '',
  MCP_CRM_API_URL: service.url,
  MCP_CRM_STATE_SECRET: secret,
});
const headersOf = (o: Org) => ({ authorization: `Bearer ${o.token}`, 'x-tenant-id': o.slug });

beforeAll(async () => {
  service = await startService();
  [org, other] = await Promise.all([newOrg(service), newOrg(service)]);
  [a, b, stranger] = await Promise.all([
    startHttpMcp(multiUser(SECRET)),
    startHttpMcp(multiUser(SECRET)),
    startHttpMcp(multiUser('another-secret-of-another-deployment-0123456789')),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), stranger?.stop()]);
  await service?.close();
});

const categories = async () =>
  (
    (await org.call('GET', '/product-categories?pagination[pageSize]=100')).body.data as { name: string }[]
  ).map((c) => c.name);

/** A plain load balancer: each request to the next process in turn; records which one answered what. */
function roundRobin(targets: string[]) {
  const served: { target: string; method: string }[] = [];
  let next = 0;
  const fetcher: FetchLike = async (url, init) => {
    const target = targets[next++ % targets.length];
    const to = new URL(url);
    const base = new URL(target);
    to.host = base.host;
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
    served.push({ target, method: body.method ?? init?.method ?? 'GET' });
    return fetch(to, init);
  };
  return { fetcher, served };
}

describe('two processes, one stateless client', () => {
  it('answers alternate requests; a confirmation started on one is finished on the other', async () => {
    const { fetcher, served } = roundRobin([a.url, b.url]);
    const asked: string[] = [];
    const client = await connectModernHttp(a.url, {
      headers: headersOf(org),
      fetch: fetcher,
      elicit: (m) => {
        asked.push(m);
        return 'accept';
      },
    });
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(83);
      const name = `Across processes ${Date.now()}`;
      const res = await callModern(client, 'crm.create_product_category', { name });
      expect(res.status).toBe('completed');
      expect(asked).toHaveLength(1);
      const calls = served.filter((s) => s.method === 'tools/call');
      expect(calls).toHaveLength(2);
      expect(calls[0].target).not.toBe(calls[1].target);
      expect(new Set(served.map((s) => s.target)).size).toBe(2);
      expect((await categories()).filter((c) => c === name)).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a process of another deployment (another secret) refuses the state', async () => {
    const first = await connectModernHttp(a.url, {
      headers: headersOf(org),
      manual: true,
      elicit: () => 'accept',
    });
    const foreign = await connectModernHttp(stranger.url, {
      headers: headersOf(org),
      manual: true,
      elicit: () => 'accept',
    });
    try {
      const name = `Foreign ${Date.now()}`;
      const asked = await round(first, 'crm.create_product_category', { name });
      if (!isInputRequiredResult(asked)) throw new Error('expected an input request');
      await expect(
        round(
          foreign,
          'crm.create_product_category',
          { name },
          {
            inputResponses: { confirm: { action: 'accept', content: {} } },
            requestState: asked.requestState,
          },
        ),
      ).rejects.toThrow(/requestState/);
      expect(await categories()).not.toContain(name);
    } finally {
      await first.close();
      await foreign.close();
    }
  }, 60_000);
});

describe('an approval is spent once and bound to its call and person', () => {
  const manual = (server: Mcp, o: Org = org) =>
    connectModernHttp(server.url, { headers: headersOf(o), manual: true, elicit: () => 'accept' });
  const accepted = (requestState?: string) => ({
    inputResponses: { confirm: { action: 'accept', content: {} } },
    requestState,
  });

  it('replaying an approved requestState does not write again, on either process', async () => {
    const clientA = await manual(a);
    const clientB = await manual(b);
    try {
      // Contacts may share a name: only the spent approval stops a second write, not the service's checks.
      const name = `Replayed ${Date.now()}`;
      const asked = await round(clientA, 'crm.create_contact', { name });
      if (!isInputRequiredResult(asked)) throw new Error('expected an input request');
      expect(Object.keys(asked.inputRequests ?? {})).toEqual(['confirm']);
      const done = await round(clientB, 'crm.create_contact', { name }, accepted(asked.requestState));
      expect(isInputRequiredResult(done)).toBe(false);
      expect((done as { structuredContent: { status: string } }).structuredContent.status).toBe('completed');
      for (const client of [clientA, clientB]) {
        const again = await round(client, 'crm.create_contact', { name }, accepted(asked.requestState));
        const r = again as { isError?: boolean; content: { text: string }[] };
        expect(r.isError).toBe(true);
        expect(JSON.parse(r.content[0].text).error).toMatchObject({
          name: 'ConfirmationError',
          details: { problem: 'used' },
        });
      }
      const found = await org.call('GET', `/contacts?filters[name][$eq]=${encodeURIComponent(name)}`);
      expect(found.body.data).toHaveLength(1);
    } finally {
      await clientA.close();
      await clientB.close();
    }
  }, 60_000);

  it('the same approval sent to both processes at once writes once', async () => {
    const clientA = await manual(a);
    const clientB = await manual(b);
    try {
      const name = `Raced ${Date.now()}`;
      const asked = await round(clientA, 'crm.create_contact', { name });
      if (!isInputRequiredResult(asked)) throw new Error('expected an input request');
      const answers = (await Promise.all(
        [clientA, clientB].map((c) => round(c, 'crm.create_contact', { name }, accepted(asked.requestState))),
      )) as { isError?: boolean; structuredContent?: { status: string } }[];
      expect(answers.filter((r) => r.structuredContent?.status === 'completed')).toHaveLength(1);
      expect(answers.filter((r) => r.isError)).toHaveLength(1);
      const found = await org.call('GET', `/contacts?filters[name][$eq]=${encodeURIComponent(name)}`);
      expect(found.body.data).toHaveLength(1);
    } finally {
      await clientA.close();
      await clientB.close();
    }
  }, 60_000);

  it('a state approves only its own arguments', async () => {
    const client = await manual(a);
    try {
      const name = `Bound ${Date.now()}`;
      const asked = await round(client, 'crm.create_product_category', { name });
      if (!isInputRequiredResult(asked)) throw new Error('expected an input request');
      const moved = await round(
        client,
        'crm.create_product_category',
        { name: `${name} (changed)` },
        accepted(asked.requestState),
      );
      const r = moved as { isError?: boolean; content: { text: string }[] };
      expect(r.isError).toBe(true);
      expect(JSON.parse(r.content[0].text).error.details).toEqual({ problem: 'mismatch' });
      expect((await categories()).some((c) => c.startsWith(name))).toBe(false);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a forged or another person's state is refused before anything runs", async () => {
    const mine = await manual(a);
    const theirs = await manual(b, other);
    try {
      const name = `Forged ${Date.now()}`;
      const asked = await round(mine, 'crm.create_product_category', { name });
      if (!isInputRequiredResult(asked)) throw new Error('expected an input request');
      const state = asked.requestState!;
      // The model (or anyone between) writes a state of its own: the payload is readable, not signable.
      const [v, body, mac] = state.split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
      payload.p.id = 'forged';
      const tampered = `${v}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
      await expect(round(mine, 'crm.create_product_category', { name }, accepted(tampered))).rejects.toThrow(
        /requestState/,
      );
      await expect(
        round(mine, 'crm.create_product_category', { name }, accepted('not-a-state')),
      ).rejects.toThrow(/requestState/);
      // Another person's client cannot spend this person's approval.
      await expect(round(theirs, 'crm.create_product_category', { name }, accepted(state))).rejects.toThrow(
        /requestState/,
      );
      expect(await categories()).not.toContain(name);
    } finally {
      await mine.close();
      await theirs.close();
    }
  }, 60_000);
});

describe("MCP_CRM_STATE_SECRET and the state's lifetime", () => {
  it('a secret shorter than 32 characters is a configuration error', async () => {
    const run = await runToExit({ ...multiUser('short'), MCP_CRM_HTTP_PORT: '0' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/MCP_CRM_STATE_SECRET must be at least 32 characters/);
  });

  it("a state past the confirmation's time to live is refused", async () => {
    const brief = await startHttpMcp({ ...multiUser(SECRET), MCP_CRM_CONFIRMATION_TTL_SECONDS: '1' });
    const client = await connectModernHttp(brief.url, {
      headers: headersOf(org),
      manual: true,
      elicit: () => 'accept',
    });
    try {
      const name = `Expired ${Date.now()}`;
      const asked = await round(client, 'crm.create_contact', { name });
      if (!isInputRequiredResult(asked)) throw new Error('expected an input request');
      await new Promise((resolve) => setTimeout(resolve, 2100));
      await expect(
        round(
          client,
          'crm.create_contact',
          { name },
          {
            inputResponses: { confirm: { action: 'accept', content: {} } },
            requestState: asked.requestState,
          },
        ),
      ).rejects.toThrow(/requestState/);
      const found = await org.call('GET', `/contacts?filters[name][$eq]=${encodeURIComponent(name)}`);
      expect(found.body.data).toHaveLength(0);
    } finally {
      await client.close();
      await brief.stop();
    }
  }, 30_000);
});
