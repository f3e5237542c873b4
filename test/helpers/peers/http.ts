import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type Handler = (
  req: IncomingMessage,
  body: Buffer,
  url: URL,
) => Promise<{ status: number; body: unknown }>;

/** A tiny HTTP server on 127.0.0.1 (ephemeral port) answering JSON: the base of the protocol peers. */
export async function startJsonServer(handle: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const out = await handle(req, Buffer.concat(chunks), new URL(req.url ?? '/', 'http://peer'));
        const raw = (out.body as { __raw?: string; type?: string } | null)?.__raw;
        // A binary answer (a media download): `{ __raw: base64, type }`.
        if (raw !== undefined) {
          res.writeHead(out.status, { 'content-type': (out.body as { type: string }).type });
          res.end(Buffer.from(raw, 'base64'));
          return;
        }
        res.writeHead(out.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(out.body));
      } catch (err) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: (err as Error).message } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}` };
}

export const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
