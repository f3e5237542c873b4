/**
 * The install step of the trigger-kept tables (card counts, report rollups, search copies: cards/counts.ts,
 * cards/report-rollups.ts, db/search-copy.ts): one idempotent DO block that creates each trigger when it is
 * missing and, the first time (no first trigger yet), fills the kept rows from what is already there, one
 * organization at a time (it runs as the owner under FORCE ROW LEVEL SECURITY, like a request). Triggers are
 * created only when missing, never replaced: CREATE TRIGGER locks the table against writes, and every migration
 * run (migrate.ts) applies this again.
 */

/** A trigger: its name, its table and what follows `CREATE TRIGGER <name>` (timing, event, level, function). */
export interface Trigger {
  name: string;
  table: string;
  create: string;
}

/** A statement-level AFTER trigger, with its transition tables (`REFERENCING NEW TABLE AS …`) when it has any. */
export const statementTrigger = (
  name: string,
  table: string,
  event: 'INSERT' | 'UPDATE' | 'DELETE' | 'TRUNCATE',
  fn: string,
  transitionTables = '',
): Trigger => ({
  name,
  table,
  create: `AFTER ${event} ON ${table} ${transitionTables}\n      FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
});

export interface TriggerInstall {
  /** Created when missing, in order; the first one's absence marks a fresh install. */
  triggers: Trigger[];
  /** A fresh install's statements for one organization, `o.id` (delete what is kept, insert it from the rows). */
  fill: string[];
  /**
   * When `condition` holds, the kept rows are of an older shape: the triggers are dropped and created again, the
   * install counts as fresh, and `afterFill` runs after the fill (recording the new shape).
   */
  stale?: { condition: string; afterFill: string };
}

export function installTriggersSql({ triggers, fill, stale }: TriggerInstall): string {
  const [first] = triggers;
  const ifMissing = (t: Trigger) => `
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${t.name}' AND tgrelid = '${t.table}'::regclass) THEN
    CREATE TRIGGER ${t.name} ${t.create};
  END IF;`;
  const drops = triggers.map((t) => `\n    DROP TRIGGER IF EXISTS ${t.name} ON ${t.table};`).join('');
  return `
DO $$
DECLARE
${stale ? `  stale boolean := ${stale.condition};\n` : ''}  fresh boolean := ${stale ? 'stale OR ' : ''}NOT EXISTS (
    SELECT 1 FROM pg_trigger WHERE tgname = '${first.name}' AND tgrelid = '${first.table}'::regclass);
  o record;
BEGIN
${stale ? `  IF stale THEN${drops}\n  END IF;` : ''}${triggers.map(ifMissing).join('')}
  IF fresh THEN
    FOR o IN SELECT id FROM organizations LOOP
      PERFORM set_config('app.organization_id', o.id::text, true);
${fill.map((s) => `      ${s};`).join('\n')}
    END LOOP;
    PERFORM set_config('app.organization_id', '', true);
  END IF;${stale ? `\n  IF stale THEN\n    ${stale.afterFill};\n  END IF;` : ''}
END $$`;
}
