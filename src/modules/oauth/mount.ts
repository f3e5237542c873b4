import type { FastifyInstance } from 'fastify';
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
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    for (const url of PATHS) {
      scope.route({
        method: ['GET', 'POST', 'DELETE', 'PUT'],
        url,
        config: { auth: 'public' },
        handler: async (req, reply) => {
          const provider = await server.providerFor(req);
          reply.hijack();
          provider.callback()(req.raw, reply.raw);
        },
      });
    }
  });
}
