import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, apiClient, getApp, newTenant } from '../../helpers/app.js';
import { radicaleMissing } from '../../helpers/peers/radicale.js';
import { connectCalendar, startAgendaWorld } from './fixture.js';

const missing = radicaleMissing();
let world: Awaited<ReturnType<typeof startAgendaWorld>>;

beforeAll(async () => {
  if (!missing) world = await startAgendaWorld();
});
afterAll(async () => {
  await world?.close();
});

describe.skipIf(!!missing)(`calendar connections${missing ? ` (${missing})` : ''}`, () => {
  test('discovery before saving; the password is sealed and never returned; one per user; removable', async () => {
    const t = await newTenant(world.app);
    const { user, connection } = await connectCalendar(t.api, world.radicale);
    expect(connection).toMatchObject({
      provider: 'caldav',
      url: world.radicale.url,
      username: user.username,
      calendarUrl: `${world.radicale.url}/${user.username}/calendar/`,
      displayName: 'Work',
      hasPassword: true,
      membership: { documentId: t.membershipId },
    });
    expect(JSON.stringify(connection)).not.toContain(user.password);
    const [row] = await queryRows<{ password_sealed: string }>(
      world.db.system,
      sql`select password_sealed from calendar_connections where document_id = ${connection.documentId}`,
    );
    expect(row.password_sealed).not.toContain(user.password);
    expect(row.password_sealed).toMatch(/^v1\./);

    const again = await t.api.post('/calendar-connections', {
      data: { url: world.radicale.url, username: user.username, password: user.password },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/one per user/);

    const list = await t.api.get('/calendar-connections');
    expect(list.body.data.map((c: any) => c.documentId)).toEqual([connection.documentId]);
    expect((await t.api.delete(`/calendar-connections/${connection.documentId}`)).status).toBe(200);
    expect((await t.api.get('/calendar-connections')).body.data).toEqual([]);
  });

  test('wrong credentials are a 422 and nothing is saved; an unknown host is a 502', async () => {
    const t = await newTenant(world.app);
    const user = await world.radicale.addUser();
    const wrong = await t.api.post('/calendar-connections', {
      data: { url: world.radicale.url, username: user.username, password: 'not-it' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.message).toMatch(/username or password/);
    expect((await t.api.get('/calendar-connections')).body.data).toEqual([]);
    const closed = await t.api.post('/calendar-connections', {
      data: { url: 'http://127.0.0.1:1/', username: 'a', password: 'b' },
    });
    expect(closed.status).toBe(502);
    expect(closed.body.error).toMatchObject({ name: 'BadGatewayError', details: { provider: 'caldav' } });
  });

  test('without the allow-list, loopback, private and metadata addresses are refused (SSRF)', async () => {
    const { app } = await getApp();
    const t = await newTenant(app);
    for (const url of [
      world.radicale.url,
      'http://localhost:5232/',
      'http://10.0.0.5/dav/',
      'http://169.254.169.254/latest/',
      'http://[::1]:5232/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const res = await t.api.post('/calendar-connections', { data: { url, username: 'a', password: 'b' } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.message).toMatch(/refused/);
    }
    const notHttp = await t.api.post('/calendar-connections', {
      data: { url: 'file:///etc/passwd', username: 'a', password: 'b' },
    });
    expect(notHttp.status).toBe(400);
  });

  test('nobody else sees, removes or infers a connection: another member, an admin, another organization', async () => {
    const t = await newTenant(world.app);
    const { connection } = await connectCalendar(t.api, world.radicale);
    const admin = await addMember(t, 'admin');
    const adminApi = apiClient(world.app, {
      authorization: `Bearer ${admin.user.jwt}`,
      'x-tenant-id': t.slug,
    });
    expect((await adminApi.get('/calendar-connections')).body.data).toEqual([]);
    expect((await adminApi.delete(`/calendar-connections/${connection.documentId}`)).status).toBe(404);
    // The admin may connect a calendar of their own: one per user, not per organization.
    await connectCalendar(adminApi, world.radicale);

    const other = await newTenant(world.app);
    expect((await other.api.get('/calendar-connections')).body.data).toEqual([]);
    expect((await other.api.delete(`/calendar-connections/${connection.documentId}`)).status).toBe(404);
    expect((await t.api.get('/calendar-connections')).body.data).toHaveLength(1);
  });
});
