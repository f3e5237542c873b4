import { installTriggersSql } from '../../platform/db/statement-triggers.js';

/**
 * The ledger's rules in the database (docs/lgpd.md, "Consent"):
 * - append-only: an UPDATE of a ledger row is refused (a DELETE stays possible: a deleted or erased contact takes
 *   its ledger with it, by the foreign key's cascade);
 * - the current state: every insert statement copies, per (contact, channel, purpose), its latest row to
 *   `contact_consent_states` (one statement per insert statement, so bulk inserts stay bulk), unless the state
 *   already holds a later one.
 */
export const CONSENT_SQL: string[] = [
  `
CREATE OR REPLACE FUNCTION contact_consents_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'contact_consents is append-only: record a new entry instead of changing one'
    USING ERRCODE = 'P0001';
END $fn$`,
  `
CREATE OR REPLACE FUNCTION contact_consents_state() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO contact_consent_states AS s
    (organization_id, contact_id, channel, purpose, status, consent_id, recorded_at)
  SELECT DISTINCT ON (organization_id, contact_id, channel, purpose)
         organization_id, contact_id, channel, purpose, status, id, recorded_at
  FROM new_rows
  ORDER BY organization_id, contact_id, channel, purpose, recorded_at DESC, id DESC
  ON CONFLICT (organization_id, contact_id, channel, purpose) DO UPDATE
    SET status = excluded.status, consent_id = excluded.consent_id, recorded_at = excluded.recorded_at
    WHERE (s.recorded_at, s.consent_id) <= (excluded.recorded_at, excluded.consent_id);
  RETURN NULL;
END $fn$`,
  installTriggersSql({
    triggers: [
      {
        name: 'contact_consents_state_insert',
        table: 'contact_consents',
        create:
          'AFTER INSERT ON contact_consents REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_consents_state()',
      },
      {
        name: 'contact_consents_append_only',
        table: 'contact_consents',
        create:
          'BEFORE UPDATE ON contact_consents FOR EACH ROW EXECUTE FUNCTION contact_consents_refuse_update()',
      },
    ],
    fill: [],
  }),
];
