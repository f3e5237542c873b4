import { sql } from 'drizzle-orm';
import { expect, test } from 'vitest';
import { ownerAndTeamRefs } from '../../../src/modules/contacts/repo.js';
import { teamRefsByIds } from '../../../src/modules/teams/repo.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { membershipRefsByIds } from '../../../src/platform/tenancy/memberships.js';
import { addMember, getApp, newTenant } from '../../helpers/app.js';

// A contact page's owners and teams are read in one statement: the same refs as the two separate reads, of
// this organization only (another's ids asked for are not answered).
test('ownerAndTeamRefs answers what membershipRefsByIds and teamRefsByIds answer', async () => {
  const { db } = await getApp();
  const t = await newTenant();
  await addMember(t, 'member');
  const other = await newTenant();
  for (const tenant of [t, other])
    for (const name of ['Vendas', 'Suporte'])
      expect((await tenant.api.post('/teams', { data: { name } })).status).toBe(201);
  const idsOf = async (table: 'memberships' | 'teams') =>
    (
      await queryRows<{ id: number }>(
        db.system,
        sql`select x.id from ${sql.raw(table)} x
            join organizations o on o.id = x.organization_id where o.slug in (${t.slug}, ${other.slug})
            order by x.id`,
      )
    ).map((r) => r.id);
  const memberships = await idsOf('memberships');
  const teams = await idsOf('teams');
  expect(memberships.length).toBeGreaterThanOrEqual(3);
  expect(teams).toHaveLength(4);
  const [{ id: orgId }] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  await db.tenantTransaction(orgId, async (tx) => {
    for (const [ownerIds, teamIds] of [
      [memberships, teams],
      [[...memberships, memberships[0]], []],
      [[], [...teams, teams[1]]],
      [[], []],
    ]) {
      const got = await ownerAndTeamRefs(tx, orgId, ownerIds, teamIds);
      expect(got.owners).toStrictEqual(await membershipRefsByIds(tx, orgId, ownerIds));
      expect(got.teams).toStrictEqual(await teamRefsByIds(tx, orgId, teamIds));
    }
    const both = await ownerAndTeamRefs(tx, orgId, memberships, teams);
    expect([...both.teams.values()].map((r) => r.name).sort()).toStrictEqual(['Suporte', 'Vendas']);
    expect(both.owners.size).toBe(2);
  });
});
