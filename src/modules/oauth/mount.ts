import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import { OAUTH_ROUTES } from './provider.js';
import type { OauthServer } from './server.js';

/** The metadata document (RFC 8414) and every endpoint of the authorization server (oidc-provider's). */
const PATHS = [
  '/.well-known/oauth-authorization-server',
  ...new Set(Object.values(OAUTH_ROUTES).flatMap((p) => [p, `${p}/*`])),
];

/**
 * oidc-provider answers its own routes: Fastify leaves their bodies unread (the provider parses them) and
 * hands over the raw request. Not under /api: they are OAuth's, not the REST API's (no envelope, no tenant).
 */
export async function mountAuthorizationServer(app: FastifyInstance, server: OauthServer) {
  const handlers = new WeakMap<Provider, ReturnType<Provider['callback']>>();
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    for (const url of PATHS) {
      scope.route({
        method: ['GET', 'POST', 'DELETE', 'PUT'],
        url,
        config: { auth: 'public' },
        // OAuth's own protocol (RFC 8414 metadata, RFC 6749/7591/7009 endpoints), not the REST API's document.
        schema: { hide: true },
        handler: async (req, reply) => {
          const provider = await server.providerFor(req);
          let handle = handlers.get(provider);
          if (!handle) {
            handle = provider.callback();
            handlers.set(provider, handle);
          }
          reply.hijack();
          handle(req.raw, reply.raw);
        },
      });
    }
  });
}
