import { request } from 'node:http';

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

export interface SseStream {
  events: SseEvent[];
  status: number;
  /** Resolves with the first event matching `pred` (already received or arriving), or rejects after `ms`. */
  next(pred: (e: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  close(): void;
}

/** A Server-Sent Events reader over real HTTP; resolves once the stream is open (its first comment line). */
export function openStream(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const waiters: { pred: (e: SseEvent) => boolean; done: (e: SseEvent) => void }[] = [];
    const req = request(
      `${baseUrl}${path}`,
      { headers: { accept: 'text/event-stream', ...headers } },
      (res) => {
        let buf = '';
        const stream: SseStream = {
          events,
          status: res.statusCode ?? 0,
          next(pred, ms = 5000) {
            const found = events.find(pred);
            if (found) return Promise.resolve(found);
            return new Promise((ok, ko) => {
              const timer = setTimeout(() => ko(new Error(`no matching event within ${ms} ms`)), ms);
              waiters.push({
                pred,
                done: (e) => {
                  clearTimeout(timer);
                  ok(e);
                },
              });
            });
          },
          close: () => req.destroy(),
        };
        if (res.statusCode !== 200) {
          let body = '';
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () =>
            resolve({ ...stream, events: [{ event: 'error', data: JSON.parse(body || 'null') }] }),
          );
          return;
        }
        res.setEncoding('utf8');
        let opened = false;
        res.on('data', (chunk: string) => {
          buf += chunk;
          if (!opened) {
            opened = true;
            resolve(stream);
          }
          let idx = buf.indexOf('\n\n');
          while (idx >= 0) {
            const block = buf.slice(0, idx);
            buf = buf.slice(idx + 2);
            idx = buf.indexOf('\n\n');
            const fields = Object.fromEntries(
              block
                .split('\n')
                .filter((l) => l && !l.startsWith(':'))
                .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
            );
            if (!fields.event) continue;
            const e = { event: fields.event, id: fields.id, data: JSON.parse(fields.data) };
            events.push(e);
            for (const w of [...waiters])
              if (w.pred(e)) {
                waiters.splice(waiters.indexOf(w), 1);
                w.done(e);
              }
          }
        });
      },
    );
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    req.end();
  });
}

/** Waits `ms` and returns the events received meanwhile that match (to assert that nothing came). */
export async function quietFor(stream: SseStream, pred: (e: SseEvent) => boolean, ms = 600) {
  await new Promise((r) => setTimeout(r, ms));
  return stream.events.filter(pred);
}
