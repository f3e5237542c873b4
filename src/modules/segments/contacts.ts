import { and, type SQL } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { listContacts, toContacts } from '../contacts/index.js';

/** One page of contacts matching a segment predicate (and a list filter), in the contacts' own shape. */
export async function contactPage(
  tx: Tx,
  orgId: number,
  predicate: SQL,
  page: {
    where?: SQL;
    orderBy: SQL;
    offset: number;
    limit: number;
    populate: Set<string>;
    withCount?: boolean;
  },
) {
  const { rows, total } = await listContacts(
    tx,
    orgId,
    {
      where: and(predicate, page.where) as SQL,
      orderBy: page.orderBy,
      offset: page.offset,
      pageSize: page.limit,
      page: 1,
      populate: page.populate,
      withCount: page.withCount,
    },
    undefined,
  );
  return { data: await toContacts(tx, orgId, rows), total };
}
