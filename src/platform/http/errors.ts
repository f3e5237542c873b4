import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DrizzleQueryError } from 'drizzle-orm';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bodyHint, pathParamHint, type RawIssue, routeHint } from './hints.js';

/** The closed set of error names and their statuses (spec, Errors). */
export const errorStatus = {
  BadRequestError: 400,
  ValidationError: 400,
  UnauthorizedError: 401,
  ForbiddenError: 403,
  NotFoundError: 404,
  MethodNotAllowedError: 405,
  RequestTimeoutError: 408,
  ConflictError: 409,
  PayloadTooLargeError: 413,
  URITooLongError: 414,
  UnsupportedMediaTypeError: 415,
  UnprocessableEntityError: 422,
  TooManyRequestsError: 429,
  RequestHeaderFieldsTooLargeError: 431,
  InternalServerError: 500,
  /** An outside system (CalDAV server, provider API) failed a synchronous call: details.provider names it. */
  BadGatewayError: 502,
  ServiceUnavailableError: 503,
} as const;

export type ErrorName = keyof typeof errorStatus;

export interface FieldError {
  path: (string | number)[];
  message: string;
  name?: string;
  value?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly errorName: ErrorName,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = errorStatus[errorName];
  }
}

/** The 404 of a resource that is absent or not the caller's to see: "<resource> not found" (the spec's wording). */
export function notFound(resource: string, details: Record<string, unknown> = {}) {
  return new AppError('NotFoundError', `${resource} not found`, details);
}

export function validationError(message: string, errors: FieldError[], extra: Record<string, unknown> = {}) {
  return new AppError('ValidationError', message, { errors, ...extra });
}

export const errorEnvelope = z
  .object({
    data: z.null(),
    error: z.object({
      status: z.number().int(),
      name: z.string(),
      message: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  })
  .describe('Error envelope of every failed request');

export function sendError(reply: FastifyReply, err: AppError) {
  // 429 (rate limits) and 409 (an Idempotency-Key still in progress) say when to try again.
  if (err.details.retryAfter) reply.header('retry-after', String(err.details.retryAfter));
  return reply.code(err.status).send({
    data: null,
    error: { status: err.status, name: err.errorName, message: err.message, details: err.details },
  });
}

/** Maps everything thrown anywhere to the spec's envelope; 500s hide the message and log it. */
export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const mapped = withHint(toAppError(error, request), request);
    if (mapped.status >= 500)
      request.log.error(
        { err: error, reqId: request.id, route: request.routeOptions?.url },
        'unhandled error',
      );
    return sendError(reply, mapped);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const hint = routeHint(request.method, path);
    const message = `Route ${request.method} ${path} not found`;
    return sendError(
      reply,
      new AppError('NotFoundError', hint ? `${message}: ${hint}` : message, hint ? { hint } : {}),
    );
  });
}

/** A 404 from a route whose path holds a slug where a documentId belongs says so (hints.ts). */
function withHint(err: AppError, request: FastifyRequest): AppError {
  if (err.errorName !== 'NotFoundError' || err.details.hint) return err;
  const hint = pathParamHint(request.routeOptions?.url, request.params);
  return hint ? new AppError(err.errorName, `${err.message}: ${hint}`, { ...err.details, hint }) : err;
}

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any route or hook runs (a malformed
 * percent-encoding, a path parameter longer than maxParamLength) answer in the envelope too.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  return sendError(reply, toAppError(error));
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (a malformed request line, headers over
 * the size limit) never reaches Fastify; the socket still gets the envelope before it closes.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, name, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'RequestTimeoutError', 'The request was not received in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'RequestHeaderFieldsTooLargeError', 'The request line or headers are too large']
        : [400, 'BadRequestError', 'Malformed HTTP request'];
  const body = JSON.stringify({ data: null, error: { status, name, message, details: {} } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

function toAppError(error: FastifyError, request?: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'request';
    const raw: (RawIssue & { message: string; full: string[] })[] = error.validation.map((v) => ({
      path: instancePath(v.instancePath),
      full: [...instancePath(v.instancePath), ...extraPath(v.params)],
      unknownKeys: v.keyword === 'unrecognized_keys' ? extraPath(v.params) : undefined,
      message: v.message ?? 'Invalid value',
    }));
    const errors = raw.map((v) => ({
      path: relativeToData(where, v.full),
      message: v.message,
      name: 'ValidationError',
    }));
    const base =
      errors.length === 1
        ? `${errors[0].message} (${where}: ${errors[0].path.join('.')})`
        : `Invalid ${where}`;
    const schema = request?.routeOptions?.schema?.body as Parameters<typeof bodyHint>[0];
    const hint = where === 'body' ? bodyHint(schema, request?.body, raw) : undefined;
    return new AppError(
      'ValidationError',
      hint ? `${base}: ${hint}` : base,
      hint ? { errors, hint } : { errors },
    );
  }
  const database = fromDatabase(error, request);
  if (database) return database;
  const code = error.code;
  const status = error.statusCode ?? 500;
  if (code === 'FST_ERR_BAD_URL')
    return new AppError('BadRequestError', 'The URL is malformed (bad percent-encoding)');
  if (code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new AppError('URITooLongError', 'A path segment is too long');
  // JSON.parse running out of stack on absurd nesting: the parser marks it 400, the message would be V8's.
  if (error instanceof RangeError && status === 400)
    return new AppError('BadRequestError', 'Request body is nested too deeply');
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (error instanceof SyntaxError && status === 400)) {
    return new AppError('BadRequestError', 'Malformed JSON in request body');
  }
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
    return new AppError('PayloadTooLargeError', 'Request body is too large');
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415) {
    return new AppError('UnsupportedMediaTypeError', 'Unsupported content type');
  }
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new AppError('BadRequestError', 'Request body is empty');
  if (status === 429) return new AppError('TooManyRequestsError', 'Too many requests');
  if (status === 404) return new AppError('NotFoundError', error.message || 'Not found');
  if (status === 405) return new AppError('MethodNotAllowedError', 'Method not allowed');
  if (status >= 400 && status < 500) return new AppError('BadRequestError', error.message);
  return new AppError('InternalServerError', 'Internal Server Error');
}

/**
 * Paths of a resource write are relative to its `data` object, as Strapi reports them and as the services
 * report their own rule errors (`['email']`, `['fields', 'phone']`); `data` itself missing stays `['data']`.
 */
function relativeToData(where: string, path: string[]): string[] {
  return where === 'body' && path[0] === 'data' && path.length > 1 ? path.slice(1) : path;
}

function instancePath(p: string | undefined): string[] {
  return (p ?? '').split('/').filter(Boolean);
}

function extraPath(params: Record<string, unknown> | undefined): string[] {
  const key = params?.missingProperty ?? params?.additionalProperty;
  if (Array.isArray(params?.keys)) return params.keys as string[];
  return typeof key === 'string' ? [key] : [];
}

/** The SQLSTATE of a database error, on the driver's error or the one drizzle wraps (its `cause`). */
export function sqlStateOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = typeof e?.code === 'string' ? e.code : e?.cause?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * A deadlock (40P01) or a serialization failure (40001): the database rolled the transaction back because of
 * concurrent transactions, not because of anything in it, so running it again may succeed.
 */
export function isConcurrencyConflict(err: unknown): boolean {
  const state = sqlStateOf(err);
  return state === '40P01' || state === '40001';
}

/** Seconds a client waits before retrying a request the database could not take (Retry-After). */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/**
 * The database (or the pooler in front of it) cannot be reached or ended the connection: class 08 (connection
 * exception), 57P01–57P03 (shut down, crashed, not accepting connections yet), 53300 (too many connections), or a
 * socket-level failure before any SQLSTATE. Nothing of the request is known to have been written: a 503.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const state = sqlStateOf(err);
  if (state) return state.startsWith('08') || /^57P0[123]$/.test(state) || state === '53300';
  // The socket's own error, as node-pg passes it on, or in the `cause` of drizzle's query error (fetch wraps its
  // socket errors in `cause` too: those are not the database's, and stay what they are).
  const e = (err instanceof DrizzleQueryError ? err.cause : err) as
    | { code?: unknown; message?: unknown }
    | undefined;
  const code = String(e?.code ?? '');
  const message = String(e?.message ?? '');
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
      message,
    )
  );
}

/** Seconds a client waits before retrying a request that lost to concurrent writes (Retry-After). */
const CONFLICT_RETRY_AFTER_SECONDS = 1;

/**
 * Database errors that say something about the request rather than the service: a transaction that lost to
 * concurrent ones (after the tenant transaction's own retries: tenancy/context.ts) is a 409 with Retry-After;
 * a value a check constraint (23514) or a numeric column's range (22003) refuses, which the route's schema
 * should have refused first (numericColumn, http/numbers.ts), a 400 naming the field. Undefined: not one of
 * those (a 500 stays a 500).
 */
function fromDatabase(error: unknown, request?: FastifyRequest): AppError | undefined {
  if (isDatabaseUnavailable(error)) {
    request?.log.warn({ err: error, route: request.routeOptions?.url }, 'database unavailable');
    return new AppError(
      'ServiceUnavailableError',
      'The database could not be reached for a moment (a restart or a failover): retry the request shortly',
      { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS },
    );
  }
  const state = sqlStateOf(error);
  if (!state) return undefined;
  if (isConcurrencyConflict(error)) {
    request?.log.warn({ err: error, route: request.routeOptions?.url }, 'concurrent write conflict');
    return new AppError(
      'ConflictError',
      'The request conflicted with concurrent writes to the same records and was rolled back (nothing changed): retry it',
      {
        retryAfter: CONFLICT_RETRY_AFTER_SECONDS,
        reason: state === '40P01' ? 'deadlock' : 'serialization_failure',
      },
    );
  }
  if (state === '23514') {
    const { constraint, table } = constraintOf(error);
    const field = checkedField(constraint, table);
    // A constraint whose name does not say its column still names itself: the message says what rule failed.
    return fieldError(
      field ? [field] : [],
      field
        ? `${field} is outside what the database accepts`
        : `A value breaks the rule ${constraint ?? 'of a check constraint'}${table ? ` on ${table}` : ''}: check the numbers and states sent`,
    );
  }
  if (state === '22003') {
    const paths = outOfRangeNumbers(request?.body, rangeLimit(error));
    const named = paths.length ? paths.map((p) => p.join('.')).join(', ') : 'A number';
    const message = `${named}: out of the range the database stores`;
    return paths.length > 0
      ? new AppError('ValidationError', message, {
          errors: paths.map((path) => ({ path, message: 'out of range', name: 'ValidationError' })),
        })
      : fieldError([], message);
  }
  return undefined;
}

function fieldError(path: string[], message: string) {
  return new AppError('ValidationError', message, {
    errors: [{ path, message, name: 'ValidationError' }],
  });
}

function constraintOf(err: unknown): { constraint?: string; table?: string } {
  const e = err as { constraint?: string; table?: string; cause?: { constraint?: string; table?: string } };
  return { constraint: e.constraint ?? e.cause?.constraint, table: e.table ?? e.cause?.table };
}

/** `card_products_quantity_check` on `card_products` → `quantity` (constraints are named `<table>_<column>_check`). */
function checkedField(constraint: string | undefined, table: string | undefined): string | undefined {
  if (!constraint) return undefined;
  let name = constraint.replace(/_check$/, '');
  if (table && name.startsWith(`${table}_`)) name = name.slice(table.length + 1);
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * The bound a 22003 names: `numeric(p,s)` answers "must round to an absolute value less than 10^n"; an integer
 * column "integer out of range" (int4) or "bigint out of range".
 */
function rangeLimit(err: unknown): number {
  const e = err as { message?: string; detail?: string; cause?: { message?: string; detail?: string } };
  const text = `${e.message ?? ''} ${e.detail ?? ''} ${e.cause?.message ?? ''} ${e.cause?.detail ?? ''}`;
  const power = /less than 10\^(\d+)/.exec(text);
  if (power) return 10 ** Number(power[1]);
  if (/smallint/.test(text)) return 2 ** 15;
  if (/bigint/.test(text)) return 2 ** 63;
  return 2 ** 31;
}

/** Paths (relative to `data`, as validation errors are) of the body's numbers at or beyond `limit`. */
function outOfRangeNumbers(body: unknown, limit: number): string[][] {
  const found: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    if (found.length >= 20 || path.length > 8) return;
    if (typeof v === 'number') {
      if (Math.abs(v) >= limit) found.push(path);
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) walk(child, [...path, k]);
    }
  };
  walk(body, []);
  return found.map((p) => (p[0] === 'data' && p.length > 1 ? p.slice(1) : p));
}

/** Unique violations are recognised by SQLSTATE, never by message text (DESIGN.md §10.4). */
export function isUniqueViolation(
  err: unknown,
): err is { code: string; constraint?: string; detail?: string } {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

export function uniqueViolationInfo(err: unknown): { constraint?: string; detail?: string } {
  const e = err as { constraint?: string; detail?: string; cause?: { constraint?: string; detail?: string } };
  return { constraint: e.constraint ?? e.cause?.constraint, detail: e.detail ?? e.cause?.detail };
}

/** Turns a 23505 into a 400 whose details name the duplicate keys; anything else passes through. */
export function onUnique(keys: string | string[], message?: string) {
  const list = Array.isArray(keys) ? keys : [keys];
  return (err: unknown): never => {
    if (isUniqueViolation(err)) {
      const info = uniqueViolationInfo(err);
      const key = list.find((k) => info.constraint?.includes(snake(k))) ?? list[0];
      throw new AppError('ValidationError', message ?? `${key} must be unique`, {
        duplicateKeys: [key],
        errors: [{ path: [key], message: `${key} is already taken`, name: 'ValidationError' }],
      });
    }
    throw err;
  };
}

function snake(s: string) {
  return s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
