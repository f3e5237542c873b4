import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Gauge, Histogram } from 'prom-client';
import type { Config } from '../../config.js';
import { AppError } from '../http/errors.js';
import type { ProcessMetrics } from './metrics.js';

type MetricsConfig = Pick<Config, 'CRM_METRICS_TOKEN' | 'CRM_METRICS_PORT' | 'HOST'>;

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Request metrics of an API process, and `GET /metrics` on its port unless CRM_METRICS_PORT gives the metrics a
 * port of their own (opened when the app is ready, closed with it). Install before the other hooks: a request
 * counts from its first moment, also when authentication or the rate limit then refuses it.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: ProcessMetrics, config: MetricsConfig) {
  const registers = [metrics.registry];
  // The route's pattern (never the URL: ids would make a series per record); `unmatched` for 404s of no route.
  const duration = new Histogram({
    name: 'crm_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status code, and the time to answer them',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_BUCKETS,
    registers,
  });
  let inFlight = 0;
  new Gauge({
    name: 'crm_http_requests_in_flight',
    help: 'HTTP requests received and not yet answered (open event streams among them)',
    registers,
    collect() {
      this.set(inFlight);
    },
  });
  app.addHook('onRequest', (_req, reply, done) => {
    inFlight++;
    // 'close' comes once per response: answered, or its connection lost while the handler still ran.
    reply.raw.once('close', () => inFlight--);
    done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    duration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });

  if (config.CRM_METRICS_PORT === undefined) {
    app.get(
      '/metrics',
      // Outside /api and the OpenAPI document (the API's contract); Prometheus's own text format.
      { config: { auth: 'public', rateLimit: false }, schema: { hide: true }, logLevel: 'warn' },
      async (req, reply) => {
        // Behind a token or on a port of their own: never open to anyone who reaches the API.
        if (!config.CRM_METRICS_TOKEN)
          throw new AppError(
            'NotFoundError',
            'Metrics are off on the API port: set CRM_METRICS_TOKEN (scrapes send it as a bearer) or CRM_METRICS_PORT (a port of their own)',
          );
        if (!authorized(config, req.headers.authorization)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"');
          throw new AppError('UnauthorizedError', 'Missing or invalid metrics token (CRM_METRICS_TOKEN)');
        }
        return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
      },
    );
    return;
  }
  let server: MetricsServer | undefined;
  app.addHook('onReady', async () => {
    server = await serveMetrics(metrics, config, metricsPort(config.CRM_METRICS_PORT!));
  });
  app.addHook('onClose', async () => server?.close());
}

/** CRM_METRICS_PORT, plus the process's index under CRM_PROCESSES > 1: each API process is scraped on its own. */
function metricsPort(port: number): number {
  return port + Number(process.env.CRM_PROCESS_INDEX ?? 0);
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `GET /metrics` on a port of its own (CRM_METRICS_PORT: API processes, `crm worker`), on HOST; still behind
 * CRM_METRICS_TOKEN when it is set. Anything else answers 404.
 */
export async function serveMetrics(
  metrics: ProcessMetrics,
  config: MetricsConfig,
  port: number,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const answer = (status: number, name: string, message: string, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
        .end(JSON.stringify({ data: null, error: { status, name, message, details: {} } }));
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.url?.split('?')[0] !== '/metrics')
      return answer(404, 'NotFoundError', 'Not found: this port serves GET /metrics');
    if (!authorized(config, req.headers.authorization))
      return answer(401, 'UnauthorizedError', 'Missing or invalid metrics token (CRM_METRICS_TOKEN)', {
        'www-authenticate': 'Bearer realm="metrics"',
      });
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: Error) => answer(500, 'ApplicationError', `metrics: ${err.message}`),
    );
  });
  // Its own port even in a node:cluster worker (each API process is a target of its own).
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: config.HOST, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether the request may read the metrics: its bearer when CRM_METRICS_TOKEN is set (else the port's reach). */
function authorized(config: MetricsConfig, header: string | undefined): boolean {
  const token = config.CRM_METRICS_TOKEN;
  if (!token) return true;
  const match = /^Bearer +(\S+)\s*$/i.exec(header ?? '');
  // Compared as digests: equal length, constant time.
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
}
