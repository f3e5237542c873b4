import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { SecretBox } from '../secrets/encryption.js';

/** The `Idempotency-Key` a request holds: set by the idempotency preHandler, carried by its TenantContext. */
export interface PendingIdempotencyKey {
  userId: number;
  key: string;
  /** This attempt's lease: a retry that took the key over after the lease expired holds another one. */
  token: string;
  /** The service's secret box: replay records are sealed with it (they may hold a secret shown once). */
  box: SecretBox;
}

/**
 * A replay record as stored: `{ "$sealed": "v1.<iv>.<tag>.<ciphertext>" }`, the JSON text of the answer sealed
 * with AES-256-GCM under the service's key, bound to the user and the key (a record copied onto another key
 * does not open). Responses showing a secret once (a webhook subscription's secret, an API token, an
 * automation's signing secret, an e-mail channel's webhookSecret) are thus never at rest in clear, and a retry
 * still gets the very same answer.
 */
export interface SealedRecord {
  $sealed: string;
}

const aad = (userId: number, key: string) => `idempotency:${userId}:${key}`;

export function sealRecord(box: SecretBox, userId: number, key: string, json: string): SealedRecord {
  return { $sealed: box.encrypt(json, aad(userId, key)) };
}

/** Is this stored value a sealed record (and not an answer kept in clear by 0.1.0)? */
export function isSealedRecord(stored: unknown): stored is SealedRecord {
  return (
    stored !== null &&
    typeof stored === 'object' &&
    Object.keys(stored).length === 1 &&
    typeof (stored as SealedRecord).$sealed === 'string'
  );
}

/**
 * The JSON text of a stored record. A record written before sealing (at most 24 h old at an upgrade) is the
 * answer itself: returned as its JSON text.
 */
export function openRecord(box: SecretBox, userId: number, key: string, stored: unknown): string {
  if (isSealedRecord(stored))
    try {
      return box.decrypt(stored.$sealed, aad(userId, key));
    } catch {
      // Another key's record, or sealed under a key the service no longer has (CRM_ENCRYPTION_KEY changed).
      throw new AppError(
        'UnprocessableEntityError',
        'The stored answer of this Idempotency-Key cannot be opened (the encryption key changed?): send the request with a new key',
        { idempotencyKey: key },
      );
    }
  return JSON.stringify(stored);
}

/**
 * Marks a keyed request's key from inside its own tenant transaction, just before the commit: if the
 * transaction wrote anything, the key becomes `committed` with the transaction's result as provisional
 * response, atomically with the write. A process that dies between the commit and the answer thus leaves a
 * key a retry replays instead of running the write again.
 *
 * Tenant transactions run as `crm_app`, which gets no privilege on idempotency_keys (they hold other users'
 * responses, across organizations): this SECURITY DEFINER function is all it may call, and it touches only
 * the row whose lease token the caller holds. It answers false when that token is no longer the key's (the
 * lease expired and a retry took the key over): the caller then rolls back, so the write happens once.
 * `pg_current_xact_id_if_assigned()` is null in a transaction that wrote nothing (a read-only POST, a
 * validation failure before any write): such a transaction marks nothing, and a retry may simply run again.
 * Created (idempotently) by migrate.ts.
 */
export const IDEMPOTENCY_COMMIT_SQL = [
  `CREATE OR REPLACE FUNCTION crm_idempotency_commit(p_user_id bigint, p_key text, p_token uuid, p_body jsonb)
RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF pg_current_xact_id_if_assigned() IS NULL THEN
    RETURN true;
  END IF;
  UPDATE public.idempotency_keys SET committed = true, provisional_body = p_body
    WHERE user_id = p_user_id AND key = p_key AND lease_token = p_token AND status_code IS NULL;
  RETURN FOUND;
END $$`,
  'REVOKE ALL ON FUNCTION crm_idempotency_commit(bigint, text, uuid, jsonb) FROM PUBLIC',
  `DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'crm_app') THEN
    GRANT EXECUTE ON FUNCTION crm_idempotency_commit(bigint, text, uuid, jsonb) TO crm_app;
  END IF;
END $$`,
];

/** Called by TenantContext.transaction with the result of the transaction's work, before it commits. */
export async function recordCommit(tx: Tx, pending: PendingIdempotencyKey, result: unknown): Promise<void> {
  const [row] = await queryRows<{ ok: boolean }>(
    tx,
    sql`select crm_idempotency_commit(${pending.userId}, ${pending.key}, ${pending.token}::uuid,
      ${JSON.stringify(sealRecord(pending.box, pending.userId, pending.key, JSON.stringify(result ?? null)))}::jsonb) as ok`,
  );
  if (!row?.ok) {
    // Thrown inside the transaction: it rolls back, and the retry that holds the key now does the work.
    throw new AppError(
      'ConflictError',
      'A retry of this request took over its Idempotency-Key: this attempt was rolled back',
      { idempotencyKey: pending.key },
    );
  }
}
