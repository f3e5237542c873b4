/**
 * Statement triggers that give a board a new `structure_version` whenever its phases, fields, tags or field
 * conditions change (insert, update, delete), so findBoardWithStructure can skip sending a structure its caller
 * already holds (docs/performance.md, eighth pass). Run by migrate.ts after the migrations (idempotent).
 *
 * The number comes from a sequence, never from `+ 1`: a number taken by a transaction that rolls back is never
 * handed out again, so a structure cached with its number cannot be mistaken for a later one. The triggers run
 * as the writer (crm_app under RLS): they touch only boards of the writer's organization. A board deleted with
 * its structure (cascade) is simply not found by the update.
 */
const TABLES = ['phases', 'field_definitions', 'tags', 'field_conditions'] as const;

export const BOARD_STRUCTURE_VERSION_SQL = [
  `CREATE OR REPLACE FUNCTION board_structure_touch() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE boards b SET structure_version = nextval('board_structure_versions')
      FROM (SELECT DISTINCT organization_id, board_id FROM new_rows) c
      WHERE b.organization_id = c.organization_id AND b.id = c.board_id;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE boards b SET structure_version = nextval('board_structure_versions')
      FROM (SELECT DISTINCT organization_id, board_id FROM old_rows) c
      WHERE b.organization_id = c.organization_id AND b.id = c.board_id;
  ELSE
    UPDATE boards b SET structure_version = nextval('board_structure_versions')
      FROM (SELECT organization_id, board_id FROM old_rows UNION SELECT organization_id, board_id FROM new_rows) c
      WHERE b.organization_id = c.organization_id AND b.id = c.board_id;
  END IF;
  RETURN NULL;
END $fn$`,
  ...TABLES.flatMap((t) => [
    `CREATE OR REPLACE TRIGGER ${t}_structure_insert AFTER INSERT ON ${t}
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION board_structure_touch()`,
    `CREATE OR REPLACE TRIGGER ${t}_structure_update AFTER UPDATE ON ${t}
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION board_structure_touch()`,
    `CREATE OR REPLACE TRIGGER ${t}_structure_delete AFTER DELETE ON ${t}
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION board_structure_touch()`,
  ]),
];
