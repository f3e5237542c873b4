import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Plan } from '../../config.js';
import { type Database, preparedRows } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { AuthFailureGate, AuthFailureKind } from '../http/rate-limit.js';
import { makeTenantContext, type Role, type TenantContext } from '../tenancy/context.js';
import { missingScopes, type Scope } from './scopes.js';
import { type SessionSigner, sha256, TOKEN_PREFIX } from './tokens.js';

/**
 * Who the bearer is: a user, through a session JWT, an API token or an OAuth access token (`oauth`: delegated to
 * an agent for one organization; never a session, so it cannot approve agent changes or mint API tokens).
 */
export interface Principal {
  userId: number;
  username: string;
  email: string;
  via: 'session' | 'token' | 'oauth';
  scopes: string[] | null;
}

/**
 * A bearer the service issued by other means (an OAuth access token, src/modules/oauth): it stands for a user
 * in one organization with a list of scopes. Opaque: neither an API token nor a session JWT.
 */
export interface DelegatedBearer {
  userId: number;
  orgId: number;
  scopes: string[];
}
export type DelegatedBearerResolver = (token: string) => Promise<DelegatedBearer | undefined>;

/** `public`: no token; `user`: a bearer, no tenant; `tenant` (default): bearer + `x-tenant-id`. */
export type AuthMode = 'public' | 'user' | 'tenant';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** The token scope(s) the route needs (all of them); required on every non-public route. */
    scope?: Scope | Scope[];
  }
  interface FastifyRequest {
    principal: Principal | null;
    tenant: TenantContext;
  }
}

export function routeAuthMode(req: FastifyRequest): AuthMode | null {
  if (!req.routeOptions.url) return null; // unknown route: let the 404 answer
  return req.routeOptions.config?.auth ?? 'tenant';
}

export const authPlugin = fp(
  async (
    app: FastifyInstance,
    opts: {
      db: Database;
      signer: SessionSigner;
      authFailures?: AuthFailureGate;
      delegated?: DelegatedBearerResolver;
    },
  ) => {
    const { db, signer, authFailures, delegated } = opts;
    app.decorateRequest('principal', null);
    app.decorateRequest('tenant', null as unknown as TenantContext);

    // Scopes are a property of the route: a non-public route that declares none is refused at startup.
    app.addHook('onRoute', (route) => {
      const config = route.config as { auth?: AuthMode; scope?: Scope | Scope[] } | undefined;
      const exempt = !route.url.startsWith('/api/') || route.url.startsWith('/api/docs');
      if (!exempt && (config?.auth ?? 'tenant') !== 'public' && !config?.scope) {
        throw new Error(`Route ${route.method} ${route.url} declares no token scope (config.scope)`);
      }
    });

    // A failure is reported to the rate limiter first: past its address's limit it answers 429 instead. The
    // bearer is verified before anything is refused, so a valid one never pays for its neighbours' failures.
    const unauthorized = async (req: FastifyRequest, reply: FastifyReply, kind: AuthFailureKind) => {
      await authFailures?.failed(req, reply, kind);
      return new AppError('UnauthorizedError', 'Missing or invalid credentials');
    };

    app.addHook('onRequest', async (req, reply) => {
      const mode = routeAuthMode(req);
      if (!mode || mode === 'public') return;
      if (req.headers.authorization === undefined) throw await unauthorized(req, reply, 'anonymous');
      const token = bearerOf(req.headers.authorization);
      if (!token) throw await unauthorized(req, reply, 'credential');
      const slug = mode === 'tenant' ? tenantSlugOf(req.headers['x-tenant-id']) : null;
      // One query resolves the bearer and, for tenant routes, the membership in the named organization.
      const row = await resolve(db, signer, token, slug, delegated);
      if (!row || row.blocked) throw await unauthorized(req, reply, 'credential');
      req.principal = {
        userId: row.id,
        username: row.username,
        email: row.email,
        via: row.delegated ? 'oauth' : token.startsWith(TOKEN_PREFIX) ? 'token' : 'session',
        scopes: row.scopes,
      };
      enforceScopes(req, row.scopes);
      if (row.delegated && mode !== 'tenant') refuseDelegatedUserRoute(req);
      if (mode !== 'tenant') return;
      // A delegated bearer belongs to one organization: without x-tenant-id it acts in that one.
      if (!slug && !row.delegated) {
        throw new AppError('BadRequestError', 'The x-tenant-id header is required (the organization slug)', {
          header: 'x-tenant-id',
        });
      }
      // An unknown slug and a foreign one answer alike: which organizations exist is not revealed.
      if (row.membership_id === null)
        throw new AppError('ForbiddenError', 'You are not a member of this organization');
      if (row.org_deleting && !READ_METHODS.has(req.method)) refuseWriteWhileDeleting();
      req.tenant = makeTenantContext(db, {
        orgId: row.org_id!,
        orgSlug: row.slug!,
        plan: row.plan!,
        userId: row.id,
        membershipId: row.membership_id,
        membershipDocumentId: row.membership_document_id!,
        role: row.role!,
        scopes: row.scopes,
      });
    });
  },
  { name: 'auth' },
);

function enforceScopes(req: FastifyRequest, tokenScopes: string[] | null) {
  const declared = req.routeOptions.config?.scope;
  if (!declared || !tokenScopes) return;
  const missing = missingScopes(tokenScopes, [declared].flat());
  if (missing.length) {
    throw new AppError('ForbiddenError', `This token lacks the ${missing.join(', ')} scope`, {
      requiredScopes: [declared].flat(),
      missingScopes: missing,
    });
  }
}

interface ResolvedRow {
  id: number;
  username: string;
  email: string;
  blocked: boolean;
  scopes: string[] | null;
  org_id: number | null;
  slug: string | null;
  plan: Plan | null;
  membership_id: number | null;
  membership_document_id: string | null;
  role: Role | null;
  /** The organization's deletion has started (organizations.deletion_started_at): reads only. */
  org_deleting: boolean | null;
  delegated?: boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * An organization the deletion job has claimed (docs/lgpd.md, "Deletion") takes no more writes: what it is being
 * emptied of must not grow back. Its members can still read until it is gone.
 */
export function refuseWriteWhileDeleting(): never {
  throw new AppError(
    'ConflictError',
    'This organization is being deleted: it accepts no changes (reads still work until it is gone)',
    { organizationDeletion: 'in_progress' },
  );
}

/**
 * The user routes (no organization) an OAuth access token may call: reading what it is and who it acts for. The
 * others act on the person's account or on any organization they belong to (tokens, organizations' export or
 * deletion), beyond the one organization the token was granted for.
 */
const DELEGATED_USER_ROUTES = new Set([
  'GET /api/oauth/token-info',
  'GET /api/users/tokens/current',
  'GET /api/users/me',
]);

function refuseDelegatedUserRoute(req: FastifyRequest) {
  if (DELEGATED_USER_ROUTES.has(`${req.method} ${req.routeOptions.url}`)) return;
  throw new AppError(
    'ForbiddenError',
    'An OAuth access token acts in the organization it was granted for only: call the tenant routes (x-tenant-id), or use a session or an API token for this route',
    { requires: 'session or API token' },
  );
}

function bearerOf(header: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

function tenantSlugOf(header: string | string[] | undefined): string | null {
  const slug = (Array.isArray(header) ? header[0] : header)?.trim();
  return slug ? slug : null;
}

async function resolve(
  db: Database,
  signer: SessionSigner,
  token: string,
  slug: string | null,
  delegated?: DelegatedBearerResolver,
) {
  if (delegated && !token.startsWith(TOKEN_PREFIX) && !token.includes('.'))
    return resolveDelegated(db, await delegated(token), slug);
  const tenantJoin = sql`left join organizations o on o.slug = ${slug ?? ''} and ${slug !== null}
    left join memberships m on m.organization_id = o.id and m.user_id = u.id`;
  const columns = sql`u.id, u.username, u.email, u.blocked, o.id as org_id, o.slug, o.plan,
    m.id as membership_id, m.document_id as membership_document_id, m.role,
    o.deletion_started_at is not null as org_deleting`;
  if (token.startsWith(TOKEN_PREFIX)) {
    const [row] = await preparedRows<ResolvedRow>(
      db.system,
      sql`select ${columns}, t.scopes from api_tokens t join users u on u.id = t.user_id ${tenantJoin}
          where t.token_hash = ${sha256(token)} and t.expires_at > now()`,
    );
    return row;
  }
  const session = await signer.verify(token);
  if (session === null) return undefined;
  // A session issued before the password last changed (or was reset) no longer stands.
  const [row] = await preparedRows<ResolvedRow>(
    db.system,
    sql`select ${columns}, null::text[] as scopes from users u ${tenantJoin}
        where u.id = ${session.userId}
          and (u.sessions_valid_from is null or u.sessions_valid_from <= to_timestamp(${session.issuedAt}))`,
  );
  return row;
}

/** A delegated bearer's user and its one organization (x-tenant-id, when sent, must name that one). */
async function resolveDelegated(db: Database, bearer: DelegatedBearer | undefined, slug: string | null) {
  if (!bearer) return undefined;
  const [row] = await preparedRows<ResolvedRow>(
    db.system,
    sql`select u.id, u.username, u.email, u.blocked, o.id as org_id, o.slug, o.plan,
          m.id as membership_id, m.document_id as membership_document_id, m.role,
          o.deletion_started_at is not null as org_deleting
        from users u
        left join organizations o on o.id = ${bearer.orgId} and (${slug}::text is null or o.slug = ${slug})
        left join memberships m on m.organization_id = o.id and m.user_id = u.id
        where u.id = ${bearer.userId}`,
  );
  return row && { ...row, scopes: bearer.scopes, delegated: true };
}
