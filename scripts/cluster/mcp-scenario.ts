/**
 * The agent servers behind HAProxy (issue 34 item 1, docs/scaling.md): a 2.x-SDK client of the stateless
 * 2026-07-28 era through HAProxy's `mcp` frontend, whose consecutive requests land on both crm-mcp processes
 * (round robin, no affinity; each answer names its server in X-Served-By); a confirmation (input_required, then the
 * retry with the sealed requestState) started on one and finished on the other; then kill -9 of one agent server
 * under load: clients see at most their in-flight request fail, and a confirmation started on the killed process
 * is finished on the survivor.
 */
import {
  type CallToolResult,
  Client,
  type FetchLike,
  type InputRequiredResult,
  isInputRequiredResult,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Cluster, killProc } from './cluster.js';
import { call, countBy, must, waitUntil } from './fault-helpers.js';

export interface McpRow {
  scenario: string;
  load: string;
  outcome: string;
  verdict: 'ok' | 'FAIL' | 'gap';
}

/** Which server answered each request of a client, by JSON-RPC method (X-Served-By). */
interface Served {
  method: string;
  server: string;
  status: number;
}

async function connect(mcpUrl: string, headers: Record<string, string>) {
  const served: Served[] = [];
  const fetcher: FetchLike = async (url, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    served.push({
      method: body.method ?? init?.method ?? 'GET',
      server: res.headers.get('x-served-by') ?? '?',
      status: res.status,
    });
    return res;
  };
  const client = new Client(
    { name: 'crm-cluster-faults', version: '1.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${mcpUrl}/mcp`), { requestInit: { headers }, fetch: fetcher }),
  );
  return { client, served };
}

/** One round of a tools/call: the result, or the input request with the state to echo. */
async function round(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  retry?: { inputResponses: Record<string, unknown>; requestState?: string },
) {
  return (await client.request(
    { method: 'tools/call', params: { name, arguments: args, ...(retry ?? {}) } },
    { allowInputRequired: true },
  )) as CallToolResult | InputRequiredResult;
}

const accept = (requestState?: string) => ({
  inputResponses: { confirm: { action: 'accept', content: {} } },
  requestState,
});

const lastServer = (served: Served[], method = 'tools/call') =>
  [...served].reverse().find((s) => s.method === method)?.server ?? '?';

/** How many product categories of this name the service holds (a confirmed write happened once, or not). */
async function categoriesNamed(c: Cluster, h: Record<string, string>, name: string) {
  const r = must(
    await call(c.url, 'GET', '/product-categories?pagination[pageSize]=100', undefined, h),
    200,
    'categories',
  );
  return (r.data as { name: string }[]).filter((x) => x.name === name).length;
}

export async function mcpScenario(c: Cluster, h: Record<string, string>): Promise<McpRow[]> {
  if (!c.mcpUrl || c.mcps.length < 2)
    return [{ scenario: 'agent servers', load: '–', outcome: 'not run: fewer than two agent servers', verdict: 'gap' }];
  const rows: McpRow[] = [];
  // An API token of the user (the agent servers are multi-user: each client brings its token and organization).
  const { authorization, 'x-tenant-id': tenant } = h;
  const tok = must(await call(c.url, 'POST', '/users/generate-token', { expiration: '1d' }, { authorization }), 201, 'token');
  const headers = { authorization: `Bearer ${tok.token}`, 'x-tenant-id': tenant! };

  // ---- 1. round robin, and a confirmation across processes
  const { client, served } = await connect(c.mcpUrl, headers);
  try {
    const { tools } = await client.listTools();
    for (let i = 0; i < 4; i++) await client.callTool({ name: 'crm.list_boards', arguments: {} });
    const calls = served.filter((s) => s.method === 'tools/call' || s.method === 'tools/list');
    const alternating = calls.every((s, i) => i === 0 || s.server !== calls[i - 1]!.server);
    const name = `Across agent servers ${Date.now()}`;
    const asked = await round(client, 'crm.create_product_category', { name });
    const askedOn = lastServer(served);
    if (!isInputRequiredResult(asked)) throw new Error(`expected input_required, got ${JSON.stringify(asked).slice(0, 200)}`);
    const done = (await round(client, 'crm.create_product_category', { name }, accept(asked.requestState))) as CallToolResult;
    const doneOn = lastServer(served);
    const status = (done.structuredContent as { status?: string } | undefined)?.status;
    const stored = await categoriesNamed(c, headers, name);
    const outcome =
      `${tools.length} tools; ${calls.length} consecutive requests answered by ${JSON.stringify(countBy(calls, (s) => s.server))}` +
      `${alternating ? ', alternating' : ', NOT alternating'}; confirmation: input_required from ${askedOn}, retry with the requestState ` +
      `answered by ${doneOn}: ${status ?? JSON.stringify(done.content).slice(0, 120)}, ${stored} category stored`;
    rows.push({
      scenario: 'two agent servers behind HAProxy (2026-07-28 client, round robin)',
      load: 'one 2.x-SDK client',
      outcome,
      verdict: alternating && askedOn !== doneOn && askedOn !== '?' && status === 'completed' && stored === 1 ? 'ok' : 'FAIL',
    });
  } finally {
    await client.close().catch(() => {});
  }

  // ---- 2. kill -9 one agent server under load
  const victim = c.mcps[1]!;
  const clients = 6;
  const conns = await Promise.all(Array.from({ length: clients }, () => connect(c.mcpUrl!, headers)));
  // A confirmation started on the victim, finished after its death.
  const pending = await connect(c.mcpUrl, headers);
  const pendingName = `Started on the killed one ${Date.now()}`;
  let pendingAsk: InputRequiredResult | undefined;
  for (let i = 0; i < 4 && !pendingAsk; i++) {
    const r = await round(pending.client, 'crm.create_product_category', { name: pendingName });
    if (isInputRequiredResult(r) && lastServer(pending.served) === victim.name) pendingAsk = r;
  }
  let stop = false;
  const t0 = performance.now();
  const results: { at: number; ok: boolean; error?: string }[] = [];
  const load = Promise.all(
    conns.map(async ({ client: cl }) => {
      while (!stop) {
        const at = performance.now() - t0;
        try {
          const r = (await cl.callTool({ name: 'crm.list_boards', arguments: {} })) as CallToolResult;
          results.push({ at, ok: !r.isError, error: r.isError ? JSON.stringify(r.content).slice(0, 100) : undefined });
        } catch (err) {
          results.push({ at, ok: false, error: (err as Error).message.slice(0, 100) });
        }
      }
    }),
  );
  await sleep(3000);
  const killedAt = performance.now() - t0;
  await killProc(victim);
  const down = await waitUntil('HAProxy marks the agent server DOWN', 10_000, async () =>
    (await c.serverStates())[victim.name]?.startsWith('DOWN') ? performance.now() - t0 - killedAt : undefined,
  ).catch(() => -1);
  await sleep(4000);
  stop = true;
  await load;
  // The retry of the confirmation the victim started: the survivor verifies the sealed state and writes.
  let finished = 'not started on the victim';
  if (pendingAsk) {
    const r = (await round(pending.client, 'crm.create_product_category', { name: pendingName }, accept(pendingAsk.requestState))) as CallToolResult;
    finished = `${(r.structuredContent as { status?: string } | undefined)?.status ?? 'error'} on ${lastServer(pending.served)}, ${await categoriesNamed(c, headers, pendingName)} stored`;
  }
  await Promise.all([...conns, pending].map((x) => x.client.close().catch(() => {})));
  const failed = results.filter((r) => !r.ok);
  const late = failed.filter((r) => r.at > killedAt + 2000);
  const idx = c.mcps.indexOf(victim);
  await c.startMcp(idx);
  await waitUntil('HAProxy marks it UP again', 20_000, async () => (await c.serverStates())[victim.name] === 'UP').catch(() => {});
  const states = await c.serverStates();
  const outcome =
    `${results.length} tool calls by ${clients} clients; ${victim.name} killed at ${(killedAt / 1000).toFixed(1)} s; ${failed.length} failed ` +
    `(${JSON.stringify(countBy(failed, (r) => (r.error ?? '').replace(/\d+/g, 'N').slice(0, 60)))}; the last ${Math.round(Math.max(0, ...failed.map((f) => f.at - killedAt)))} ms after the kill); ` +
    `HAProxy marked it DOWN ${Math.round(down)} ms after the kill; a confirmation started on ${victim.name} and retried after its death: ${finished}; ` +
    `restarted: ${JSON.stringify(Object.fromEntries(Object.entries(states).filter(([k]) => k.startsWith('mcp'))))}`;
  rows.push({
    scenario: 'kill -9 one agent server (mcp2) under load',
    load: `${clients} clients calling crm.list_boards, 7 s`,
    outcome,
    verdict: failed.length <= clients && late.length === 0 && (!pendingAsk || finished.startsWith('completed on') && finished.endsWith(', 1 stored')) ? 'ok' : 'FAIL',
  });
  return rows;
}
