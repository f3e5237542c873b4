import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Radicale, radicaleMissing, startRadicale } from '../helpers/peers/radicale.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import {
  call,
  connect,
  fails,
  mcpEnv,
  newOrg,
  type Org,
  read,
  type Service,
  startService,
  type Transport,
  write,
} from './harness.js';

const missing = radicaleMissing();
let service: Service;
let radicale: Radicale;
let smtp: TestSmtp;
const saved = { allow: process.env.CRM_OUTBOUND_ALLOWLIST, smtp: process.env.SMTP_URL };

beforeAll(async () => {
  if (missing) return;
  radicale = await startRadicale();
  smtp = await startSmtp();
  // The service reads its configuration from the environment: the loopback Radicale is allow-listed
  // (DESIGN.md §11) and invitations go to the local SMTP server.
  process.env.CRM_OUTBOUND_ALLOWLIST = '127.0.0.1';
  process.env.SMTP_URL = smtp.url;
  try {
    service = await startService();
  } finally {
    process.env.CRM_OUTBOUND_ALLOWLIST = saved.allow;
    process.env.SMTP_URL = saved.smtp;
    if (saved.allow === undefined) delete process.env.CRM_OUTBOUND_ALLOWLIST;
    if (saved.smtp === undefined) delete process.env.SMTP_URL;
  }
});
afterAll(async () => {
  await service?.close();
  await radicale?.stop();
  await smtp?.close();
});

const day = (d: number, h = 0) => {
  const t = new Date(Date.now() + d * 86_400_000);
  t.setUTCHours(h, 0, 0, 0);
  return t.toISOString();
};

describe.skipIf(!!missing).each<Transport>(['stdio', 'http'])(
  `agenda tools over %s${missing ? ` (${missing})` : ''}`,
  (transport) => {
    let org: Org;
    let client: Client;
    let close: () => Promise<void>;
    let boardId: string;
    let cardId: string;

    beforeAll(async () => {
      org = await newOrg(service);
      ({ client, close } = await connect(transport, mcpEnv(service, org)));
      const board = await org.call('POST', '/boards', { data: { name: 'Deals' } });
      boardId = board.body.documentId;
      const card = await org.call('POST', `/boards/${boardId}/cards`, { data: { title: 'Acme' } });
      cardId = card.body.documentId;
    });
    afterAll(async () => {
      await close?.();
    });

    it('without a calendar: scheduling is a 422 tool error; the agenda tool tells the model about sourceErrors', async () => {
      const { tools } = await client.listTools();
      const agenda = tools.find((t) => t.name === 'crm.list_agenda_events');
      expect(agenda?.description).toMatch(/meta\.partial/);
      expect(agenda?.description).toMatch(/meta\.sourceErrors/);
      expect(agenda?.annotations?.readOnlyHint).toBe(true);
      for (const name of ['crm.schedule_card_meeting', 'crm.update_card_meeting', 'crm.cancel_card_meeting'])
        expect(tools.find((t) => t.name === name)?.annotations?.readOnlyHint, name).toBe(false);
      await fails(
        client,
        'crm.schedule_card_meeting',
        { boardId, cardId, title: 'x', start: day(2, 10), end: day(2, 11) },
        422,
        'UnprocessableEntityError',
      );
    });

    it('find slots, schedule (confirmed), list, update, cancel — with human confirmation on each change', async () => {
      const user = await radicale.addUser();
      const conn = await org.call('POST', '/calendar-connections', {
        data: { url: radicale.url, username: user.username, password: user.password },
      });
      expect(conn.status).toBe(201);

      const slots = await read(client, 'crm.find_meeting_slots', {
        boardId,
        cardId,
        start: day(1),
        end: day(8),
        durationMinutes: 45,
        timeZone: 'America/Sao_Paulo',
      });
      expect(slots.slots.length).toBeGreaterThan(0);
      const slot = slots.slots[0];

      // The first call only previews: nothing reaches the calendar before the person confirms.
      const preview = await call(client, 'crm.schedule_card_meeting', {
        boardId,
        cardId,
        title: 'Kick-off',
        start: slot.start,
        end: slot.end,
        attendees: [{ email: 'guest@example.com', name: 'Guest' }],
      });
      expect(preview.structuredContent?.status).toBe('confirmation_required');
      expect(preview.structuredContent?.preview.summary).toMatch(/guest@example\.com/);
      expect((await read(client, 'crm.list_card_meetings', { boardId, cardId })).data).toEqual([]);

      const meeting = await write(client, 'crm.schedule_card_meeting', {
        boardId,
        cardId,
        title: 'Kick-off',
        start: slot.start,
        end: slot.end,
        attendees: [{ email: 'guest@example.com', name: 'Guest' }],
      });
      expect(meeting).toMatchObject({ title: 'Kick-off', status: 'scheduled', sequence: 0 });

      const agenda = await read(client, 'crm.list_agenda_events', { start: day(0), end: day(9) });
      expect(agenda.meta.partial).toBe(false);
      expect(agenda.data.find((e: any) => e.link?.documentId === meeting.documentId)).toMatchObject({
        source: 'calendar',
        title: 'Kick-off',
        // Who organizes it and whether it stands, without reading the meeting (its card is visible here).
        link: {
          type: 'meeting',
          status: 'scheduled',
          organizer: { documentId: meeting.organizer.documentId },
        },
      });
      const onlyTasks = await read(client, 'crm.list_agenda_events', {
        start: day(0),
        end: day(9),
        sources: ['tasks'],
      });
      expect(onlyTasks.data).toEqual([]);

      const updated = await write(client, 'crm.update_card_meeting', {
        meetingId: meeting.documentId,
        location: 'Room 2',
      });
      expect(updated).toMatchObject({ location: 'Room 2', sequence: 1 });
      const cancelled = await write(client, 'crm.cancel_card_meeting', { meetingId: meeting.documentId });
      expect(cancelled).toMatchObject({ status: 'cancelled', sequence: 2 });
      const listed = await read(client, 'crm.list_card_meetings', { boardId, cardId });
      expect(listed.data.map((m: any) => m.status)).toEqual(['cancelled']);

      await fails(client, 'crm.list_agenda_events', { start: day(0), end: day(70) }, 400);
    });
  },
);
