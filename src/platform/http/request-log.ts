import {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Config } from '../../config.js';
import { logSerializers } from './log-redaction.js';

/**
 * The logger options: the caller's (tests pass a destination stream), else CRM_LOG_LEVEL, printed by
 * pino-pretty when CRM_LOG_FORMAT says so or (auto) when a person is watching the terminal. Whoever
 * configures it, request URLs and errors are logged redacted (log-redaction.ts).
 */
export function loggerOptions(
  config: Pick<Config, 'CRM_LOG_LEVEL' | 'CRM_LOG_FORMAT'>,
  explicit: boolean | object | undefined,
  isTTY = process.stdout.isTTY === true,
): false | Record<string, unknown> {
  if (explicit === false) return false;
  if (explicit !== undefined) return { ...(explicit === true ? {} : explicit), serializers: logSerializers };
  if (config.CRM_LOG_LEVEL === 'silent') return false;
  const pretty = config.CRM_LOG_FORMAT === 'pretty' || (config.CRM_LOG_FORMAT === 'auto' && isTTY);
  return {
    level: config.CRM_LOG_LEVEL,
    serializers: logSerializers,
    ...(pretty && {
      transport: {
        target: 'pino-pretty',
        options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true },
      },
    }),
  };
}

const bound = Symbol('identity bound to the request logger');

/** Tenant and user of the request on its logger (and the reply's), once, as soon as authentication knows them. */
function bindIdentity(req: FastifyRequest, reply: FastifyReply) {
  const r = req as FastifyRequest & { [bound]?: true };
  if (r[bound]) return;
  const ids: Record<string, string | number> = {};
  if (req.tenant) Object.assign(ids, { tenant: req.tenant.orgSlug, orgId: req.tenant.orgId });
  if (req.principal) ids.userId = req.principal.userId;
  if (!Object.keys(ids).length) return;
  r[bound] = true;
  const child: FastifyBaseLogger = req.log.child(ids);
  req.log = child;
  reply.log = child;
}

/**
 * One line per request, when it completes: method, path (no query string: its values are the caller's
 * filters, e-mail addresses, sometimes tokens), route, status, duration, request id, tenant and user.
 * Replaces Fastify's two lines per request (incoming, completed) and its "route not found" line, which
 * quotes the raw URL with its query string.
 */
export class RequestLogController extends LogController {
  override incomingRequest() {}

  override routeNotFound() {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply) {
    // A request refused by authentication never reached the onRequest hook; a scope failure still knows the user.
    bindIdentity(req, reply);
    const line = {
      req,
      res: { statusCode: reply.statusCode },
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** Binds tenant and user to the request's logger; install after the auth plugin, whose hook resolves them. */
export function installRequestLog(app: FastifyInstance) {
  app.addHook('onRequest', async (req, reply) => bindIdentity(req, reply));
}
