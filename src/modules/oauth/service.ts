import type { IncomingMessage, ServerResponse } from 'node:http';
import { sql } from 'drizzle-orm';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import type { Principal } from '../../platform/auth/plugin.js';
import { SCOPES } from '../../platform/auth/scopes.js';
import { type Database, queryRows } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { TOKEN_TTL } from './provider.js';
import type { ConnectedApplication, ConsentDecision } from './schema.js';
import type { OauthServer } from './server.js';

interface Raw {
  req: IncomingMessage;
  res: ServerResponse;
}

/** The browser's own sign-in request: its interaction cookie must name this uid (no one else's can be used). */
async function interactionOf(provider: Provider, raw: Raw, uid: string): Promise<Interaction> {
  const interaction = await provider.interactionDetails(raw.req, raw.res).catch(() => undefined);
  if (!interaction || interaction.uid !== uid)
    throw new AppError(
      'NotFoundError',
      'This sign-in request is unknown, expired, or was started in another browser: start again from the application',
    );
  return interaction;
}

const resourceOf = (i: Interaction): string | null => {
  const r = [i.params.resource ?? []].flat() as string[];
  return r.length === 1 ? r[0] : null;
};

/** The catalogue scopes asked for; none named: the whole catalogue (the role still bounds what it can do). */
const scopesOf = (i: Interaction): string[] => {
  const asked = String(i.params.scope ?? '').split(' ');
  const known = SCOPES.filter((s) => asked.includes(s));
  return known.length ? known : [...SCOPES];
};

async function organizationsOf(db: Database, userId: number) {
  return queryRows<{ id: number; slug: string; name: string; role: string }>(
    db.system,
    sql`select o.id, o.slug, o.name, m.role from memberships m join organizations o on o.id = m.organization_id
        where m.user_id = ${userId} order by o.name`,
  );
}

function requireSession(principal: Principal) {
  if (principal.via !== 'session')
    throw new AppError(
      'ForbiddenError',
      'Only the person, signed in to the web application, can answer a sign-in request',
    );
}

export async function consentRequest(
  db: Database,
  provider: Provider,
  raw: Raw,
  uid: string,
  principal: Principal,
) {
  requireSession(principal);
  const interaction = await interactionOf(provider, raw, uid);
  const client = await provider.Client.find(String(interaction.params.client_id));
  const meta = client?.metadata() ?? {};
  const orgs = await organizationsOf(db, principal.userId);
  return {
    uid,
    client: {
      clientId: String(interaction.params.client_id),
      name: meta.client_name ?? null,
      uri: meta.client_uri ?? null,
      logoUri: meta.logo_uri ?? null,
    },
    resource: resourceOf(interaction),
    scopes: scopesOf(interaction),
    organizations: orgs.map(({ slug, name, role }) => ({ slug, name, role })),
  };
}

export async function decideConsent(
  db: Database,
  provider: Provider,
  raw: Raw,
  uid: string,
  principal: Principal,
  decision: ConsentDecision,
) {
  requireSession(principal);
  const interaction = await interactionOf(provider, raw, uid);
  if (!decision.approve) {
    const redirectTo = await provider.interactionResult(raw.req, raw.res, {
      error: 'access_denied',
      error_description: 'The person declined the request',
    });
    return { redirectTo };
  }
  const resource = resourceOf(interaction);
  if (!resource)
    throw new AppError(
      'BadRequestError',
      'The application named no agent server (the resource parameter, RFC 8707): it cannot be approved',
      { field: 'resource' },
    );
  const org = (await organizationsOf(db, principal.userId)).find((o) => o.slug === decision.organization);
  if (!org)
    throw new AppError('BadRequestError', 'Pick one of your organizations (organization: its slug)', {
      field: 'organization',
    });
  const clientId = String(interaction.params.client_id);
  const accountId = `${principal.userId}.${org.id}`;
  const grant = new provider.Grant({ accountId, clientId });
  grant.addResourceScope(resource, scopesOf(interaction).join(' '));
  const grantId = await grant.save();
  const client = await provider.Client.find(clientId);
  await recordGrantInfo(db, grantId, principal.userId, {
    clientId,
    name: client?.metadata().client_name ?? null,
    uri: client?.metadata().client_uri ?? null,
    resource,
    scopes: scopesOf(interaction),
    organizationId: org.id,
  });
  const redirectTo = await provider.interactionResult(raw.req, raw.res, {
    login: { accountId },
    consent: { grantId },
  });
  return { redirectTo };
}

/** What Settings shows of a grant, kept beside it (revoking the grant deletes it with its tokens). */
async function recordGrantInfo(db: Database, grantId: string, userId: number, info: Record<string, unknown>) {
  const expires = new Date(Date.now() + TOKEN_TTL.Grant * 1000);
  await db.system.execute(sql`
    insert into oauth_records (kind, id, payload, grant_id, user_id, expires_at)
    values ('GrantInfo', ${grantId}, ${JSON.stringify({ ...info, createdAt: new Date().toISOString() })}::jsonb,
      ${grantId}, ${userId}, ${expires})`);
}

interface GrantInfoRow {
  id: string;
  payload: {
    clientId: string;
    name: string | null;
    uri: string | null;
    resource: string | null;
    scopes: string[];
    createdAt: string;
  };
  slug: string | null;
  org_name: string | null;
}

export async function listApplications(db: Database, userId: number): Promise<ConnectedApplication[]> {
  const rows = await queryRows<GrantInfoRow>(
    db.system,
    sql`select i.id, i.payload, o.slug, o.name as org_name from oauth_records i
        join oauth_records g on g.kind = 'Grant' and g.id = i.id and (g.expires_at is null or g.expires_at > now())
        left join organizations o on o.id = (i.payload->>'organizationId')::bigint
        where i.kind = 'GrantInfo' and i.user_id = ${userId} order by i.payload->>'createdAt' desc`,
  );
  return rows.map((r) => ({
    id: r.id,
    clientId: r.payload.clientId,
    name: r.payload.name,
    uri: r.payload.uri,
    resource: r.payload.resource,
    scopes: r.payload.scopes,
    organization: r.slug ? { slug: r.slug, name: r.org_name! } : null,
    createdAt: r.payload.createdAt,
  }));
}

/** The grant, its codes and tokens, gone at once: the application's next call gets 401. */
export async function revokeApplication(db: Database, userId: number, id: string) {
  const rows = await queryRows<{ n: number }>(
    db.system,
    sql`with gone as (
          delete from oauth_records where ((kind = 'Grant' and id = ${id}) or grant_id = ${id})
            and exists (select 1 from oauth_records where kind = 'GrantInfo' and id = ${id} and user_id = ${userId})
          returning 1)
        select count(*)::int as n from gone`,
  );
  if (!rows[0]?.n) throw new AppError('NotFoundError', 'No connected application with this id');
  return { documentId: id, deleted: true as const };
}

/** The access token in the Authorization header, as the agent server checks it (its resource, organization). */
export async function tokenInfo(db: Database, server: OauthServer, authorization: string | undefined) {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
  const info = await server.accessToken(token);
  if (!info)
    throw new AppError(
      'NotFoundError',
      'The bearer is not an OAuth access token of this service (an API token or a session has no resource)',
    );
  const [org] = await queryRows<{ slug: string }>(
    db.system,
    sql`select slug from organizations where id = ${info.orgId}`,
  );
  return {
    clientId: info.clientId,
    resource: info.resource,
    organization: org?.slug ?? '',
    scopes: info.scopes,
    expiresAt: info.expiresAt,
  };
}
