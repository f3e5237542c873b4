import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { LiveHub } from './live.js';
import { beta, read, tags } from './route-docs.js';
import * as service from './service.js';

/** The live inbox updates (Server-Sent Events), with the hub that feeds them and their end at shutdown. */
export function registerEventRoutes(app: RouteApp, deps: AppDeps) {
  const hub = new LiveHub(deps.db, app.log);
  // Open event streams end when the app closes (before the server waits for its connections to finish), each
  // with a `retry:` hint.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of streams) end();
  });
  app.addHook('onClose', () => hub.close());

  app.get(
    '/conversations/events',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Live inbox updates (Server-Sent Events)',
        description: beta(
          'A text/event-stream of `message.created` ({ conversation, message }) and `conversation.updated` ({ conversation }) for the conversations the caller may see, from every API process. A comment line every 15 s keeps it open. Reconnecting with `Last-Event-ID` (EventSource does) first replays what was missed since that event: the conversations changed and the messages created, with a 5 s overlap (an event may arrive twice, with the same id). Send an Accept header (text/event-stream); a request without one gets an empty stream that ends at once.',
        ),
        produces: ['text/event-stream'],
        response: { 200: z.string().describe('event stream') },
      },
    },
    async (req, reply) => {
      service.requireInbox(req.tenant);
      // EventSource, fetch and curl send an Accept header; a request without one (a sweep, a bare probe) gets
      // the stream's opening and its end instead of a connection that never finishes.
      if (!req.headers.accept)
        return reply
          .type('text/event-stream; charset=utf-8')
          .send(': send Accept: text/event-stream to keep this stream open\n\n');
      const ctx = req.tenant;
      const raw = reply.raw;
      let unsubscribe: (() => void) | undefined;
      const reader = {
        orgId: ctx.orgId,
        role: ctx.role,
        membershipId: ctx.membershipId,
        send(event: string, id: string, data: unknown) {
          raw.write(`event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
        },
      };
      unsubscribe = await hub.subscribe(reader);
      reply.hijack();
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': req.id,
      });
      raw.write(': connected\n\n');
      // EventSource sends the id of the last event it saw when it reconnects: what it missed comes first.
      const lastEventId = req.headers['last-event-id'];
      if (typeof lastEventId === 'string' && lastEventId)
        await hub
          .replay(reader, lastEventId)
          .catch((err) => req.log.warn({ err }, 'inbox live: replay failed'));
      // A first id (no event): a reader that has seen no event yet still reconnects from here and misses nothing.
      else raw.write(`id: c0-${Date.now()}\n\n`);
      const beat = setInterval(() => raw.write(': keep-alive\n\n'), 15_000);
      beat.unref();
      const counted = deps.metrics.streamOpened();
      const stop = () => {
        clearInterval(beat);
        counted();
        unsubscribe?.();
        unsubscribe = undefined;
        streams.delete(end);
      };
      // At shutdown: tell EventSource to reconnect soon (to another process, or this one restarted).
      const end = () => {
        stop();
        raw.end('retry: 2000\n: server shutting down, reconnect\n\n');
      };
      streams.add(end);
      raw.on('close', stop);
    },
  );
}
