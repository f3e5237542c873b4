import { installTriggersSql, type Trigger } from './statement-triggers.js';

/**
 * A narrow, trigger-kept copy of a wide table's searchable text (and whatever its counts read), for the exact
 * totals of substring search (docs/performance.md, fifth pass): cards/title-search.ts, contacts/name-search.ts.
 *
 * Kept in the writing transaction: inserts by a statement trigger (one INSERT … SELECT per statement, so bulk
 * inserts stay bulk), changes of the copied columns and deletes by row triggers (an update that leaves them alone
 * does not even call them: the WHEN clause is checked in C), TRUNCATE by a statement trigger. Row triggers for the
 * two that must find the copy: a statement trigger joining its transition table would keep, in PL/pgSQL's cached
 * plan, a join chosen for the first statement's row count. `migrate.ts` applies the DDL after every migration
 * (idempotent); the first time, it fills the copy from the rows already there, one organization at a time
 * (forced RLS, as the card counts do), and again whenever the copy's `shape` changes (its triggers recreated too).
 */
export interface SearchCopy {
  /** The copy (also the prefix of its functions and triggers) and the table it copies. */
  table: string;
  source: string;
  /** The copy's columns, each with the source expression it holds over a row (`r` is `NEW.` or empty). */
  columns: [column: string, expr: (r: string) => string][];
  /** The copy's key columns, which an update leaves alone. */
  key: string[];
  /** The source's columns the copied ones are computed from: the update trigger fires when one of them changed. */
  watch: string[];
  /** A row trigger's condition finding the copy of the row `OLD`. */
  findOld: string;
  /**
   * The shape of the copied text (kept as the copy's table comment). A database whose copy says otherwise (an
   * older release's, e.g. 0.1.0's lowercased titles before accent-blind search) gets its triggers recreated and
   * its copy refilled from the rows, as a fresh one: change it whenever `columns` computes something new.
   */
  shape: string;
}

export function searchCopyDdl(c: SearchCopy): string[] {
  const names = c.columns.map(([col]) => col).join(', ');
  const values = (r: string) => c.columns.map(([, expr]) => expr(r)).join(', ');
  const copied = c.columns.filter(([col]) => !c.key.includes(col));
  const set = copied.map(([col, expr]) => `${col} = ${expr('NEW.')}`).join(', ');
  // The raw columns, not the copied expressions: a function in the WHEN clause would run on every update.
  const changed = `(${c.watch.map((w) => `OLD.${w}`).join(', ')}) IS DISTINCT FROM (${c.watch.map((w) => `NEW.${w}`).join(', ')})`;
  const trigger = (name: string, create: string): Trigger => ({
    name: `${c.table}_${name}`,
    table: c.source,
    create,
  });
  return [
    `
CREATE OR REPLACE FUNCTION ${c.table}_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE ${c.table};
  ELSE
    INSERT INTO ${c.table} (${names}) SELECT ${values('')} FROM new_rows;
  END IF;
  RETURN NULL;
END $fn$`,
    `
CREATE OR REPLACE FUNCTION ${c.table}_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM ${c.table} WHERE ${c.findOld};
  ELSE
    UPDATE ${c.table} SET ${set} WHERE ${c.findOld};
  END IF;
  RETURN NULL;
END $fn$`,
    installTriggersSql({
      triggers: [
        trigger(
          'insert',
          `AFTER INSERT ON ${c.source} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${c.table}_insert()`,
        ),
        trigger(
          'truncate',
          `AFTER TRUNCATE ON ${c.source} FOR EACH STATEMENT EXECUTE FUNCTION ${c.table}_insert()`,
        ),
        trigger(
          'update',
          `AFTER UPDATE ON ${c.source} FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION ${c.table}_change()`,
        ),
        trigger('delete', `AFTER DELETE ON ${c.source} FOR EACH ROW EXECUTE FUNCTION ${c.table}_change()`),
      ],
      fill: [
        `DELETE FROM ${c.table} WHERE organization_id = o.id`,
        `INSERT INTO ${c.table} (${names}) SELECT ${values('')} FROM ${c.source} WHERE organization_id = o.id`,
      ],
      // A copy of another shape: its triggers recreated, refilled, then marked with the new shape.
      stale: {
        condition: `obj_description('${c.table}'::regclass, 'pg_class') IS DISTINCT FROM '${c.shape}'`,
        afterFill: `COMMENT ON TABLE ${c.table} IS '${c.shape}'`,
      },
    }),
  ];
}
