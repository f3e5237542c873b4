import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildMigrations } from '../../src/platform/db/migrate.js';

/**
 * A released migration is part of every database made since: it is never edited, removed or renumbered, and
 * new ones only come after it (docs/upgrading.md). The released list, with each file's sha256, sits beside the
 * upgrade fixtures; a release appends its own migrations to it.
 */
const root = join(import.meta.dirname, '../..');
const drizzleDir = join(root, 'drizzle');
const released = JSON.parse(
  readFileSync(join(root, 'test/fixtures/upgrade/released-migrations.json'), 'utf8'),
) as { migrations: { release: string; tag: string; when: number; sha256: string; snapshotSha256: string }[] };
const journal = JSON.parse(readFileSync(join(drizzleDir, 'meta/_journal.json'), 'utf8')) as {
  entries: { idx: number; tag: string; when: number }[];
};
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('released migrations are frozen', () => {
  test('0.1.0 shipped exactly one migration, 0000_init', () => {
    expect(released.migrations.filter((m) => m.release === '0.1.0').map((m) => m.tag)).toEqual(['0000_init']);
    expect(released.migrations[0].sha256).toBe(
      'c851453e6da6a482c202e31d0ebe3a32a17cd6ef04012bb5b9c93045642b3ec0',
    );
  });

  test.each(released.migrations.map((m, i) => [m.tag, i, m] as const))(
    '%s is still in the journal at its place, with the same SQL and snapshot',
    (tag, i, m) => {
      expect(journal.entries[i], `journal entry ${i} (was ${tag})`).toMatchObject({
        idx: i,
        tag,
        when: m.when,
      });
      const file = join(drizzleDir, `${tag}.sql`);
      expect(existsSync(file), `${file} was removed`).toBe(true);
      expect(sha256(file), `${tag}.sql was changed after its release: add a new migration instead`).toBe(
        m.sha256,
      );
      const snapshot = join(drizzleDir, `meta/${String(i).padStart(4, '0')}_snapshot.json`);
      expect(sha256(snapshot), `${snapshot} was changed after its release`).toBe(m.snapshotSha256);
    },
  );

  test('the journal only grows: numbered in order, later than what came before, every file present', () => {
    journal.entries.forEach((e, i) => {
      expect(e.idx).toBe(i);
      expect(e.tag.startsWith(`${String(i).padStart(4, '0')}_`)).toBe(true);
      if (i > 0) expect(e.when).toBeGreaterThan(journal.entries[i - 1].when);
      expect(existsSync(join(drizzleDir, `${e.tag}.sql`))).toBe(true);
      expect(existsSync(join(drizzleDir, `meta/${String(i).padStart(4, '0')}_snapshot.json`))).toBe(true);
    });
    // No SQL file the journal does not name (drizzle would ignore it silently).
    const files = readdirSync(drizzleDir).filter((f) => f.endsWith('.sql'));
    expect(files.sort()).toEqual(journal.entries.map((e) => `${e.tag}.sql`).sort());
  });

  test('the migrator identifies each migration by the same hash and time as drizzle stores', () => {
    const build = buildMigrations();
    for (const m of released.migrations)
      expect(build.find((b) => b.tag === m.tag)).toEqual({ tag: m.tag, when: m.when, hash: m.sha256 });
  });
});
