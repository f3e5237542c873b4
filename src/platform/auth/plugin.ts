import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Plan } from '../../config.js';
import { type Database, queryRows } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { makeTenantContext, type Role, type TenantContext } from '../tenancy/context.js';
import { type SessionSigner, sha256, TOKEN_PREFIX } from './tokens.js';

/** Who the bearer is: a user, through a session JWT or an API token. */
export interface Principal {
  userId: number;
  username: string;
  email: string;
  via: 'session' | 'token';
  scopes: string[] | null;
}

/** `public`: no token; `user`: a bearer, no tenant; `tenant` (default): bearer + `x-tenant-id`. */
export type AuthMode = 'public' | 'user' | 'tenant';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
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
  async (app: FastifyInstance, opts: { db: Database; signer: SessionSigner }) => {
    const { db, signer } = opts;
    app.decorateRequest('principal', null);
    app.decorateRequest('tenant', null as unknown as TenantContext);

    app.addHook('onRequest', async (req) => {
      const mode = routeAuthMode(req);
      if (!mode || mode === 'public') return;
      req.principal = await authenticate(db, signer, req.headers.authorization);
      if (mode === 'tenant') req.tenant = await resolveTenant(db, req.principal, req.headers['x-tenant-id']);
    });
  },
  { name: 'auth' },
);

async function authenticate(
  db: Database,
  signer: SessionSigner,
  header: string | undefined,
): Promise<Principal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) throw new AppError('UnauthorizedError', 'Missing or invalid credentials');
  const token = match[1];
  if (token.startsWith(TOKEN_PREFIX)) {
    const [row] = await queryRows<{
      id: number;
      username: string;
      email: string;
      blocked: boolean;
      scopes: string[] | null;
    }>(
      db.system,
      sql`select u.id, u.username, u.email, u.blocked, t.scopes from api_tokens t join users u on u.id = t.user_id
          where t.token_hash = ${sha256(token)} and t.expires_at > now()`,
    );
    if (!row || row.blocked) throw new AppError('UnauthorizedError', 'Missing or invalid credentials');
    return { userId: row.id, username: row.username, email: row.email, via: 'token', scopes: row.scopes };
  }
  const userId = await signer.verify(token);
  if (userId === null) throw new AppError('UnauthorizedError', 'Missing or invalid credentials');
  const [row] = await queryRows<{ id: number; username: string; email: string; blocked: boolean }>(
    db.system,
    sql`select id, username, email, blocked from users where id = ${userId}`,
  );
  if (!row || row.blocked) throw new AppError('UnauthorizedError', 'Missing or invalid credentials');
  return { userId: row.id, username: row.username, email: row.email, via: 'session', scopes: null };
}

async function resolveTenant(
  db: Database,
  principal: Principal,
  header: string | string[] | undefined,
): Promise<TenantContext> {
  const slug = Array.isArray(header) ? header[0] : header;
  if (!slug || !slug.trim()) {
    throw new AppError('BadRequestError', 'The x-tenant-id header is required (the organization slug)', {
      header: 'x-tenant-id',
    });
  }
  const [row] = await queryRows<{
    org_id: number;
    slug: string;
    plan: Plan;
    membership_id: number;
    membership_document_id: string;
    role: Role;
  }>(
    db.system,
    sql`select o.id as org_id, o.slug, o.plan, m.id as membership_id, m.document_id as membership_document_id, m.role
        from organizations o join memberships m on m.organization_id = o.id and m.user_id = ${principal.userId}
        where o.slug = ${slug.trim()}`,
  );
  // An unknown slug and a foreign one answer alike: which organizations exist is not revealed.
  if (!row) throw new AppError('ForbiddenError', 'You are not a member of this organization');
  return makeTenantContext(db, {
    orgId: row.org_id,
    orgSlug: row.slug,
    plan: row.plan,
    userId: principal.userId,
    membershipId: row.membership_id,
    membershipDocumentId: row.membership_document_id,
    role: row.role,
    scopes: principal.scopes,
  });
}
