import type { FastifyInstance } from 'fastify';
import { PROJECTION, type Projection, project } from './list-query.js';

/**
 * `fields` and `populate` narrow a list's items (Strapi: only the chosen attributes, only the populated
 * relations). The route's response schema describes the full item, so the page is first checked against it
 * as usual (a service bug is still a 500, not a silently malformed reply), then narrowed, then written as
 * is: the narrowed items would not pass the full schema.
 */
export function installProjection(app: FastifyInstance) {
  app.addHook('preSerialization', async (_req, reply, payload) => {
    const p =
      payload && typeof payload === 'object'
        ? ((payload as Record<symbol, unknown>)[PROJECTION] as Projection | undefined)
        : undefined;
    if (!p) return payload;
    const responses = reply.routeOptions.schema?.response as Record<string, unknown> | undefined;
    const schema = (responses?.[reply.statusCode] ?? responses?.['2xx']) as
      | { parse?: (v: unknown) => unknown }
      | undefined;
    const full = (typeof schema?.parse === 'function' ? schema.parse(payload) : payload) as {
      data: unknown[];
    };
    reply.serializer(JSON.stringify);
    return { ...full, data: full.data.map((item) => project(item, p)) };
  });
}

/**
 * An empty body sent as `Content-Type: application/json` is no body (HTTP clients such as `@strapi/client`
 * set the header on every request, DELETE included). Fastify's own JSON parser refuses it with
 * FST_ERR_CTP_EMPTY_JSON_BODY; any other body still goes through that parser, with its prototype-poisoning
 * refusal intact. A route that needs a body still answers 400 from its schema.
 */
export function acceptEmptyJsonBody(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    parseJson(req, body as string, done);
  });
}
