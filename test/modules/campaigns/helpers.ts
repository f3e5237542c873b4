import type { Api, Tenant } from '../../helpers/app.js';
import { createEmailChannel, createWhatsAppChannel, type MessagingEnv } from '../../helpers/messaging.js';

/** Contacts tagged by city so a segment picks exactly them. */
/** Records a granted marketing consent of the channel for a contact (through the API, as a member would). */
export async function grantMarketing(api: Api, contact: string, channel: 'email' | 'whatsapp' | 'sms') {
  const res = await api.post(`/contacts/${contact}/consents`, {
    data: { channel, purpose: 'marketing', status: 'granted', source: 'manual' },
  });
  if (res.status !== 201) throw new Error(`consent failed: ${JSON.stringify(res.body)}`);
}

export async function seedContacts(
  api: Api,
  city: string,
  n: number,
  kind: 'email' | 'phone' = 'email',
  consent = true,
) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const data =
      kind === 'email'
        ? { name: `Person ${i}`, email: `p${i}.${city}@example.com`, city }
        : { name: `Person ${i}`, phone: `+55119${String(10000000 + i).padStart(8, '0')}`, city };
    const res = await api.post('/contacts', { data });
    if (res.status !== 201) throw new Error(`contact create failed: ${JSON.stringify(res.body)}`);
    ids.push(res.body.documentId);
    // Campaigns are marketing: the organization requires a granted consent by default (docs/lgpd.md).
    if (consent) await grantMarketing(api, res.body.documentId, kind === 'email' ? 'email' : 'whatsapp');
  }
  return ids;
}

export async function segmentFor(api: Api, city: string) {
  const res = await api.post('/segments', {
    data: {
      name: `City ${city}`,
      filters: { logic: 'AND', conditions: [{ field: 'city', op: 'eq', value: city }] },
    },
  });
  if (res.status !== 201) throw new Error(`segment create failed: ${JSON.stringify(res.body)}`);
  return res.body.documentId as string;
}

export const emailTemplateBody = {
  name: 'News',
  subject: 'Hello {{contact.name}}',
  html: '<html><body><p>Hi {{contact.name}}</p><a href="https://shop.example.com/sale?x=1&amp;y=2">Sale</a> <a href="{{unsubscribeUrl}}">Unsubscribe</a></body></html>',
};

export async function emailCampaign(
  t: Tenant,
  opts: { city: string; contacts?: number; rate?: number; scheduledAt?: string },
) {
  const channel = await createEmailChannel(t.api, opts.rate ? { ratePerSecond: opts.rate } : {});
  const tpl = await t.api.post('/email-templates', {
    data: { ...emailTemplateBody, name: `News ${opts.city}` },
  });
  if (opts.contacts) await seedContacts(t.api, opts.city, opts.contacts);
  const segment = await segmentFor(t.api, opts.city);
  const res = await t.api.post('/campaigns', {
    data: {
      name: `Campaign ${opts.city}`,
      channel: channel.documentId,
      segment,
      template: tpl.body.documentId,
      ...(opts.scheduledAt ? { scheduledAt: opts.scheduledAt } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`campaign create failed: ${JSON.stringify(res.body)}`);
  return { campaign: res.body, channel, segment, template: tpl.body };
}

export async function whatsappCampaign(
  t: Tenant,
  env: MessagingEnv,
  opts: { city: string; contacts: number },
) {
  const channel = await createWhatsAppChannel(t.api, env);
  env.wa.templates.set(`promo_${opts.city}|pt_BR`, {
    id: `77${opts.city.length}`,
    name: `promo_${opts.city}`,
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Oi {{1}}' }],
  });
  const synced = await t.api.post(`/chat-channels/${channel.documentId}/templates/sync`);
  const tpl = synced.body.data.find((x: any) => x.name === `promo_${opts.city}`);
  await seedContacts(t.api, opts.city, opts.contacts, 'phone');
  const segment = await segmentFor(t.api, opts.city);
  const res = await t.api.post('/campaigns', {
    data: {
      name: `WA ${opts.city}`,
      channel: channel.documentId,
      segment,
      template: tpl.documentId,
      variables: { '1': '{{contact.name}}' },
    },
  });
  if (res.status !== 201) throw new Error(`campaign create failed: ${JSON.stringify(res.body)}`);
  return { campaign: res.body, channel, segment };
}

export async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`condition not met in ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
