import { describe, expect, it } from 'vitest';
import { addMember, newTenant } from '../../helpers/app.js';

describe('GET /audit-logs', () => {
  it('lists the organization’s entries to admins, filtered and paginated; members and other organizations get nothing', async () => {
    const t = await newTenant();
    const other = await newTenant();
    for (const name of ['A', 'B', 'C']) {
      const c = await t.api.post('/product-categories', { data: { name } });
      expect(c.status).toBe(201);
    }
    await other.api.post('/product-categories', { data: { name: 'Other' } });
    const all = await t.api.get('/audit-logs', { 'filters[action][$eq]': 'product_category.created' });
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(3);
    expect(all.body.data[0].actor.email).toBe(t.user.email);
    expect(all.body.meta.pagination.total).toBe(3);
    const page = await t.api.get('/audit-logs', {
      action: 'product_category.created',
      'pagination[pageSize]': 2,
    });
    expect(page.body.data).toHaveLength(2);
    expect(page.body.meta.pagination.pageCount).toBe(2);
    const target = all.body.data[1].target;
    expect((await t.api.get('/audit-logs', { target })).body.data).toHaveLength(1);
    expect(
      (await t.api.get('/audit-logs', { actor: t.user.email, action: 'product_category.created' })).body.data,
    ).toHaveLength(3);
    expect(
      (await t.api.get('/audit-logs', { 'filters[actor][email][$eq]': other.user.email })).body.data,
    ).toHaveLength(0);
    expect((await t.api.get('/audit-logs', { from: '2000-01-01', to: '2000-01-02' })).body.data).toHaveLength(
      0,
    );
    expect((await t.api.get('/audit-logs', { from: 'yesterday' })).status).toBe(400);
    expect((await t.api.get('/audit-logs', { 'filters[nope][$eq]': 1 })).status).toBe(400);
    // The other organization sees only its own.
    const theirs = await other.api.get('/audit-logs', { 'filters[target][$eq]': target });
    expect(theirs.body.data).toHaveLength(0);
    expect(
      (await other.api.get('/audit-logs')).body.data.every(
        (e: { actor: { email: string } | null }) => e.actor?.email !== t.user.email,
      ),
    ).toBe(true);
    const member = await addMember(t, 'member');
    expect((await member.api.get('/audit-logs')).status).toBe(403);
    const admin = await addMember(t, 'admin');
    expect((await admin.api.get('/audit-logs')).status).toBe(200);
  });
});
