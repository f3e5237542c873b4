import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { type Database, type Executor, queryRows } from '../../platform/db/client.js';

/** Records looked up by a value the client or browser holds (a bearer): stored under its SHA-256 only. */
const PLAIN_ID_KINDS = new Set(['Client', 'Grant']);

const keyOf = (kind: string, id: string) =>
  PLAIN_ID_KINDS.has(kind) ? id : createHash('sha256').update(id).digest('base64url');

/** `<userId>.<orgId>`: the account a grant is for (the person, in the organization they picked). */
export function parseAccountId(accountId: unknown): { userId: number; orgId: number } | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(String(accountId ?? ''));
  return m ? { userId: Number(m[1]), orgId: Number(m[2]) } : undefined;
}

interface Row {
  payload: AdapterPayload;
  consumed: boolean;
}

/**
 * oidc-provider's storage on the service's database (oauth_records), so every API process sees the same
 * codes, tokens, grants and interactions. A stored payload never carries its bearer value (`jti`): the caller
 * of find() holds it already.
 */
export class DatabaseAdapter implements Adapter {
  constructor(
    private readonly db: Database,
    private readonly kind: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const stored = PLAIN_ID_KINDS.has(this.kind) ? payload : { ...payload, jti: undefined };
    const user = this.kind === 'Grant' ? (parseAccountId(payload.accountId)?.userId ?? null) : null;
    const expires = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
    await this.db.system.execute(sql`
      insert into oauth_records (kind, id, payload, grant_id, uid, user_id, expires_at)
      values (${this.kind}, ${keyOf(this.kind, id)}, ${JSON.stringify(stored)}::jsonb,
        ${payload.grantId ?? null}, ${payload.uid ?? null}, ${user}, ${expires})
      on conflict (kind, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
        uid = excluded.uid, user_id = excluded.user_id, expires_at = excluded.expires_at`);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const [row] = await queryRows<Row>(
      this.db.system,
      sql`select payload, consumed_at is not null as consumed from oauth_records
          where kind = ${this.kind} and id = ${keyOf(this.kind, id)}
            and (expires_at is null or expires_at > now())`,
    );
    return row && this.restore(row, id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const [row] = await queryRows<Row & { id: string }>(
      this.db.system,
      sql`select payload, consumed_at is not null as consumed from oauth_records
          where kind = ${this.kind} and uid = ${uid} and (expires_at is null or expires_at > now())`,
    );
    // A session found by its uid: its cookie id is not known here, and oidc-provider does not need it.
    return row && this.restore(row, row.payload.jti as string);
  }

  async findByUserCode(): Promise<undefined> {
    return undefined; // the device flow is not enabled
  }

  async consume(id: string): Promise<void> {
    await this.db.system.execute(
      sql`update oauth_records set consumed_at = now() where kind = ${this.kind} and id = ${keyOf(this.kind, id)}`,
    );
  }

  async destroy(id: string): Promise<void> {
    await this.db.system.execute(
      sql`delete from oauth_records where kind = ${this.kind} and id = ${keyOf(this.kind, id)}`,
    );
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.system.execute(sql`delete from oauth_records where grant_id = ${grantId}`);
  }

  private restore(row: Row, id: string): AdapterPayload {
    const payload = { ...row.payload, ...(PLAIN_ID_KINDS.has(this.kind) ? {} : { jti: id }) };
    return row.consumed ? { ...payload, consumed: true } : payload;
  }
}

/** Expired records out (the periodic maintenance): codes, tokens, interactions, sessions, grants. */
export async function sweepOauthRecords(ex: Executor): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    ex,
    sql`with gone as (delete from oauth_records where expires_at < now() returning 1)
        select count(*)::int as n from gone`,
  );
  return row.n;
}
