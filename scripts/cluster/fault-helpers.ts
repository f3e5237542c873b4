/**
 * The tools of the fault scenarios of scripts/cluster/faults.ts: HTTP calls and closed-loop load, an SSE reader that
 * notices its end, a webhook receiver, and which process is busiest.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Proc } from './cluster.js';

// ---- HTTP helpers

export type Res = { status: number; body: any; ms: number };
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  const t0 = performance.now();
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, body: parsed, ms: performance.now() - t0 };
}

/** `call`, a network error counted as status 0. */
export const tryCall = async (...args: Parameters<typeof call>): Promise<Res> => {
  const t0 = performance.now();
  try {
    return await call(...args);
  } catch (err) {
    return { status: 0, body: (err as Error).message, ms: performance.now() - t0 };
  }
};

export async function signUp(base: string, slug: string) {
  const reg = await call(base, 'POST', '/auth/local/register', {
    username: slug,
    email: `${slug}@x.test`,
    password: 'correct-horse-battery',
  });
  if (reg.status !== 200) throw new Error(`register ${reg.status} ${JSON.stringify(reg.body)}`);
  const auth = { authorization: `Bearer ${reg.body.jwt}` };
  const org = await call(base, 'POST', '/organizations', { data: { name: slug, slug } }, auth);
  if (org.status !== 201) throw new Error(`organization ${org.status} ${JSON.stringify(org.body)}`);
  return { ...auth, 'x-tenant-id': slug };
}

export function must(r: Res, status: number, what: string) {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  return r.body;
}

/** Closed-loop clients running `task` until `until`; statuses counted, with their times since `t0`. */
export async function loop(
  clients: number,
  until: () => boolean,
  task: (client: number, i: number) => Promise<Res>,
) {
  const results: { at: number; status: number; ms: number; client: number }[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; !until(); i++) {
        const at = performance.now() - t0;
        const r = await task(c, i);
        results.push({ at, status: r.status, ms: r.ms, client: c });
      }
    }),
  );
  return results;
}

export const countBy = <T>(xs: T[], key: (x: T) => string) => {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return Object.fromEntries([...m].sort());
};
export const pct = (xs: number[], q: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]! : 0;

export async function waitUntil<T>(what: string, ms: number, probe: () => Promise<T | undefined | false>) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    await sleep(250);
  }
  throw new Error(`timed out after ${ms} ms: ${what}`);
}

/** Every card of a board (documentIds), through the list. */
export async function allCards(base: string, h: Record<string, string>, board: string) {
  const ids = new Set<string>();
  for (let page = 1; ; page++) {
    const r = must(
      await call(base, 'GET', `/boards/${board}/cards?pagination[page]=${page}&pagination[pageSize]=100&stats=false`, undefined, h),
      200,
      'card list',
    );
    for (const c of r.data) ids.add(c.documentId);
    if (r.data.length < 100) return ids;
  }
}

// ---- an SSE reader that notices its end

export interface Sse {
  events: { event: string; id?: string; data: any }[];
  closed: Promise<void>;
  close(): void;
}
export function openSse(url: string, headers: Record<string, string>): Promise<Sse> {
  return new Promise((resolve, reject) => {
    const events: Sse['events'] = [];
    let ended: () => void = () => {};
    const closed = new Promise<void>((r) => (ended = r));
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`SSE ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let buf = '';
      let opened = false;
      res.on('data', (chunk: string) => {
        buf += chunk;
        if (!opened) {
          opened = true;
          resolve({ events, closed, close: () => req.destroy() });
        }
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f: Record<string, string> = {};
          for (const l of block.split('\n'))
            if (l && !l.startsWith(':')) f[l.slice(0, l.indexOf(':'))] = l.slice(l.indexOf(':') + 1).trimStart();
          if (f.event) events.push({ event: f.event, id: f.id, data: JSON.parse(f.data ?? 'null') });
        }
      });
      res.on('end', ended);
      res.on('close', ended);
      res.on('error', ended);
    });
    req.on('error', (err) => {
      ended();
      reject(err);
    });
    req.end();
  });
}

// ---- the webhook receiver: deliveries per event id, order per record

interface Receiver {
  url: string;
  deliveries: { id: string; subject: string; type: string; timestamp: string; at: number }[];
  /** The client ports of the deliveries being answered now (whose sender is waiting). */
  inFlight: Set<number>;
  close(): Promise<void>;
}
export async function startReceiver(delayMs: number): Promise<Receiver> {
  const deliveries: Receiver['deliveries'] = [];
  const inFlight = new Set<number>();
  const server: Server = createServer((req, res) => {
    const peer = req.socket.remotePort!;
    inFlight.add(peer);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      await sleep(delayMs);
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        const card = body.data?.card?.documentId;
        deliveries.push({
          id: String(req.headers['webhook-id']),
          subject: card ? `card:${card}` : String(body.type),
          type: body.type,
          timestamp: body.timestamp,
          at: Date.now(),
        });
      } catch {}
      res.writeHead(204).end();
      inFlight.delete(peer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    inFlight,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The process among `procs` that used the most CPU over `ms` (the one doing the work). */
export async function busiest(procs: Proc[], ms = 1000): Promise<Proc> {
  const cpu = (p: Proc) => {
    try {
      const s = readFileSync(`/proc/${p.pid}/stat`, 'utf8') as string;
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch {
      return 0;
    }
  };
  const before = procs.map(cpu);
  await sleep(ms);
  const used = procs.map((p, i) => cpu(p) - before[i]!);
  return procs[used.indexOf(Math.max(...used))]!;
}

/**
 * The process among `procs` that holds the loopback TCP connection whose local port is `port` (/proc/net/tcp's
 * inode of that socket, found among each process's open files): the sender of a request a receiver is holding.
 */
export function ownerOfPort(procs: Proc[], port: number): Proc | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  let inode: string | undefined;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hex}`) && f[9] && f[9] !== '0') inode = f[9];
    }
  }
  if (!inode) return undefined;
  const target = `socket:[${inode}]`;
  return procs.find((p) => {
    try {
      return readdirSync(`/proc/${p.pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${p.pid}/fd/${fd}`) === target;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}
