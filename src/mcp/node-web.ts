import type { IncomingMessage, ServerResponse } from 'node:http';

/** The largest /mcp request body read (the SDKs' own bound: 4 MiB). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class BodyTooLarge extends Error {}

/** The request's body, at most MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The same request as a web `Request` (the 2026-07-28 handler's face), aborted when the client goes away. */
export function toWebRequest(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), {
    method: req.method,
    headers,
    body: body?.length ? new Uint8Array(body) : undefined,
    signal: abort.signal,
  });
}

/** Writes a web `Response` (a JSON body or an SSE stream) to the Node response. */
export async function sendWebResponse(res: ServerResponse, response: Response) {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  for await (const chunk of response.body) res.write(chunk);
  res.end();
}
