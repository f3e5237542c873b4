import { createHmac, randomBytes } from 'node:crypto';
import { closeServer, startJsonServer } from './http.js';

/**
 * A local WhatsApp Cloud API: messages, message templates, resumable uploads and the phone number's fields,
 * Graph-style paths under any `/{version}`, Bearer token checked, Graph error bodies. It also builds the
 * status webhooks Meta would send, signed with `X-Hub-Signature-256` (HMAC-SHA256 of the raw body, app secret).
 */

export interface SentMessage {
  id: string;
  phoneNumberId: string;
  to: string;
  type: string;
  payload: Record<string, any>;
  /** When the peer accepted it (ms since the epoch): the spacing the senders kept. */
  receivedAt: number;
}

/** The Cloud API error codes of WhatsApp's limits, answered on demand (failNextWith, enforcePairRate). */
export type LimitCode = 130429 | 131056 | 131047 | 131026;

/**
 * Each code as Meta sends it: the Graph error body ({ error: { message, type, code, error_data: { messaging_product,
 * details }, error_subcode?, fbtrace_id } }) and the HTTP status. Meta's own tables disagree on the status of the
 * throttling codes (400 in some versions, 429 in others); Meta asks clients to act on `code`, so the tests also send
 * them with the other status (`status` option).
 */
export const LIMIT_ERRORS: Record<
  LimitCode,
  { status: number; message: string; details: string; subcode?: number }
> = {
  130429: {
    status: 429,
    message: '(#130429) Rate limit hit',
    details: 'Cloud API message throughput has been reached.',
    subcode: 2494055,
  },
  131056: {
    status: 429,
    message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
    details:
      'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
  },
  131047: {
    status: 400,
    message: '(#131047) Re-engagement message',
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  },
  131026: {
    status: 400,
    message: '(#131026) Message undeliverable',
    details:
      'Unable to deliver message. Reasons can include: the recipient phone number is not a WhatsApp phone number; the recipient has not accepted our new Terms of Service and Privacy Policy; the recipient is using an old WhatsApp version.',
  },
};

export interface PeerTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: any[];
}

export interface WhatsAppPeer {
  url: string;
  accessToken: string;
  messages: SentMessage[];
  templates: Map<string, PeerTemplate>;
  uploads: Map<string, { fileName: string; length: number; type: string; received: number }>;
  /** Media uploaded with POST /{phone-number-id}/media (multipart), by media id. */
  media: Map<string, { type: string; filename: string; bytes: number }>;
  /**
   * Makes media downloadable (GET /{media-id} → url → bytes), as an inbound image would be; its media id. Uploaded
   * media (`media`) is downloadable the same way.
   */
  addMedia(bytes: Buffer, mimeType: string): string;
  /** From now on the media's download URL answers 404, as WhatsApp's does once the media is gone. */
  expireMedia(id: string): void;
  /** Every request the peer saw (method and path). */
  requests: { method: string; path: string }[];
  /** The next `count` message sends answer `status` with a Graph error (`code`: its error code, default 131000). */
  failNext(count: number, status?: number, message?: string, code?: number): void;
  /**
   * The next `count` message sends (to `to` only, when given) are accepted (in `messages`), then the connection is
   * dropped unanswered.
   */
  dropNext(count: number, to?: string): void;
  /**
   * The next `count` message sends (to `to` only, when given) answer WhatsApp's error `code` as Meta does (body
   * and status; `status` overrides the status).
   */
  failNextWith(code: LimitCode, count: number, opts?: { to?: string; status?: number }): void;
  /** Answers 131056 to a message sooner than `ms` after the last one accepted for the same recipient (0: off). */
  enforcePairRate(ms: number): void;
  /** Every message send refused with one of the limit codes, in order. */
  refusals: { to: string; code: LimitCode; at: number }[];
  /** Adds a delay before each message answer (throughput and kill tests). */
  setDelay(ms: number): void;
  /** A status webhook as Meta sends it: the raw body and its headers, signed with `appSecret`. */
  statusWebhook(
    appSecret: string,
    phoneNumberId: string,
    statuses: {
      id: string;
      status: 'sent' | 'delivered' | 'read' | 'failed';
      recipientId?: string;
      /** The error of a failed status (default 131026), as Meta puts it in `errors[0]`. */
      errorCode?: LimitCode;
    }[],
  ): { body: string; headers: Record<string, string> };
  /** An inbound-messages webhook as Meta sends it, signed with `appSecret`. */
  messagesWebhook(
    appSecret: string,
    phoneNumberId: string,
    messages: InboundMessage[],
  ): { body: string; headers: Record<string, string> };
  close(): Promise<void>;
}

export interface InboundMessage {
  from: string;
  id?: string;
  name?: string;
  timestamp?: number;
  type?: string;
  text?: string;
  [key: string]: unknown;
}

const sign = (appSecret: string, body: string) => ({
  'content-type': 'application/json',
  'x-hub-signature-256': `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`,
});

const graphError = (status: number, message: string, code = 100) => ({
  status,
  body: { error: { message, type: 'OAuthException', code, fbtrace_id: randomBytes(6).toString('hex') } },
});

/** A status webhook's `errors[0]` for a code: { code, title, message, error_data: { details } }. */
const webhookError = (code: LimitCode) => {
  const title = LIMIT_ERRORS[code].message.replace(/^\(#\d+\)\s*/, '');
  return { code, title, message: title, error_data: { details: LIMIT_ERRORS[code].details } };
};

const limitError = (code: LimitCode, status?: number) => {
  const e = LIMIT_ERRORS[code];
  return {
    status: status ?? e.status,
    body: {
      error: {
        message: e.message,
        type: 'OAuthException',
        code,
        error_data: { messaging_product: 'whatsapp', details: e.details },
        ...(e.subcode ? { error_subcode: e.subcode } : {}),
        fbtrace_id: randomBytes(9).toString('base64url'),
      },
    },
  };
};

export async function startWhatsAppPeer(opts: { accessToken?: string } = {}): Promise<WhatsAppPeer> {
  // Unique per peer: a campaign another test file left running on the shared database (its workers revived by this
  // file's watchdog, same job namespace within a test process) is refused here, never counted as this file's send.
  const accessToken = opts.accessToken ?? `wa-test-${randomBytes(6).toString('hex')}`;
  const messages: SentMessage[] = [];
  const templates = new Map<string, PeerTemplate>();
  const uploads = new Map<string, { fileName: string; length: number; type: string; received: number }>();
  const media = new Map<string, { type: string; filename: string; bytes: number }>();
  const stored = new Map<string, { bytes: Buffer; type: string }>();
  const expired = new Set<string>();
  const requests: { method: string; path: string }[] = [];
  let failures: { count: number; status: number; message: string; code?: number } = {
    count: 0,
    status: 500,
    message: '',
  };
  let delayMs = 0;
  let drops: { count: number; to?: string } = { count: 0 };
  let seq = 0;
  let limitFailures: { code: LimitCode; count: number; to?: string; status?: number }[] = [];
  let pairMs = 0;
  const lastAccepted = new Map<string, number>();
  const refusals: { to: string; code: LimitCode; at: number }[] = [];
  /** A limit refusal due for this message, if any (programmed first, then the enforced pair rate). */
  const limitFor = (to: string, now: number) => {
    const programmed = limitFailures.find((f) => f.count > 0 && (!f.to || f.to === to));
    if (programmed) {
      programmed.count--;
      limitFailures = limitFailures.filter((f) => f.count > 0);
      return limitError(programmed.code, programmed.status);
    }
    const last = lastAccepted.get(to);
    if (pairMs > 0 && last !== undefined && now - last < pairMs) return limitError(131056);
    return undefined;
  };

  const { server, url } = await startJsonServer(async (req, body, u) => {
    const method = req.method ?? 'GET';
    requests.push({ method, path: u.pathname });
    const parts = u.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const [, node, edge] = parts; // parts[0] is the version
    const auth = req.headers.authorization ?? '';
    const isUploadData = method === 'POST' && node?.startsWith('upload:') && !edge;
    const expected = isUploadData ? `OAuth ${accessToken}` : `Bearer ${accessToken}`;
    if (auth !== expected) return graphError(401, 'Invalid OAuth access token.', 190);

    if (method === 'POST' && edge === 'messages') {
      const payload = JSON.parse(body.toString('utf8'));
      if (payload.messaging_product !== 'whatsapp') return graphError(400, 'messaging_product is required');
      if (!payload.to) return graphError(400, 'Recipient phone number not valid', 131030);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (failures.count > 0) {
        failures.count--;
        return graphError(
          failures.status,
          failures.message || 'Service temporarily unavailable',
          failures.code ?? 131000,
        );
      }
      const now = Date.now();
      const limited = limitFor(payload.to, now);
      if (limited) {
        refusals.push({ to: payload.to, code: limited.body.error.code, at: now });
        return limited;
      }
      lastAccepted.set(payload.to, now);
      const id = `wamid.${randomBytes(12).toString('hex')}`;
      messages.push({
        id,
        phoneNumberId: node,
        to: payload.to,
        type: payload.type,
        payload,
        receivedAt: now,
      });
      if (drops.count > 0 && (!drops.to || drops.to === payload.to)) {
        drops.count--;
        // Taken, then the connection lost before the answer: the sender cannot know the message left.
        req.socket.destroy();
      }
      return {
        status: 200,
        body: {
          messaging_product: 'whatsapp',
          contacts: [{ input: payload.to, wa_id: payload.to }],
          messages: [{ id }],
        },
      };
    }
    if (method === 'POST' && edge === 'media') {
      const form = await new Response(new Uint8Array(body), {
        headers: { 'content-type': String(req.headers['content-type'] ?? '') },
      })
        .formData()
        .catch(() => null);
      const file = form?.get('file');
      if (form?.get('messaging_product') !== 'whatsapp' || !(file instanceof Blob))
        return graphError(400, 'Param file must be a file with one of the following types');
      const id = String(9_000_000 + ++seq);
      const type = String(form.get('type') ?? file.type);
      media.set(id, { type, filename: (file as File).name ?? '', bytes: file.size });
      // Uploaded media is retrievable like inbound media (GET /{media-id} → url → bytes) until it expires.
      stored.set(id, { bytes: Buffer.from(await file.arrayBuffer()), type });
      return { status: 200, body: { id } };
    }
    if (edge === 'message_templates') {
      if (method === 'GET') {
        const all = [...templates.values()];
        const limit = Number(u.searchParams.get('limit') ?? 25);
        const start = Number(u.searchParams.get('after') ?? 0);
        const page = all.slice(start, start + limit);
        const more = start + limit < all.length;
        return {
          status: 200,
          body: {
            data: page,
            paging: {
              cursors: { before: String(start), after: String(start + limit) },
              ...(more ? { next: `${url}${u.pathname}?after=${start + limit}` } : {}),
            },
          },
        };
      }
      if (method === 'POST') {
        const t = JSON.parse(body.toString('utf8'));
        if (!/^[a-z0-9_]{1,512}$/.test(t.name ?? '')) return graphError(400, 'Invalid parameter: name');
        if (!['MARKETING', 'UTILITY', 'AUTHENTICATION'].includes(t.category))
          return graphError(400, 'Invalid parameter: category');
        if (!Array.isArray(t.components) || t.components.length === 0)
          return graphError(400, 'Invalid parameter: components');
        const key = `${t.name}|${t.language}`;
        if (templates.has(key))
          return graphError(400, `Message template "${t.name}" already exists in ${t.language}`, 2388023);
        const id = String(1_000_000 + ++seq);
        templates.set(key, {
          id,
          name: t.name,
          language: t.language,
          category: t.category,
          status: 'PENDING',
          components: t.components,
        });
        return { status: 200, body: { id, status: 'PENDING', category: t.category } };
      }
      if (method === 'DELETE') {
        const name = u.searchParams.get('name');
        const matches = [...templates.entries()].filter(([, t]) => t.name === name);
        if (matches.length === 0) return graphError(404, `Message template "${name}" not found`, 100);
        for (const [k] of matches) templates.delete(k);
        return { status: 200, body: { success: true } };
      }
    }
    if (method === 'POST' && edge === 'uploads') {
      const id = `upload:${randomBytes(8).toString('hex')}`;
      uploads.set(id, {
        fileName: u.searchParams.get('file_name') ?? '',
        length: Number(u.searchParams.get('file_length') ?? 0),
        type: u.searchParams.get('file_type') ?? '',
        received: 0,
      });
      return { status: 200, body: { id } };
    }
    if (isUploadData) {
      const session = uploads.get(node);
      if (!session) return graphError(404, 'Upload session not found');
      if (req.headers.file_offset !== '0') return graphError(400, 'file_offset required');
      session.received = body.length;
      if (session.received !== session.length) return graphError(400, 'File length mismatch');
      return {
        status: 200,
        body: { h: `4::${Buffer.from(`${node}:${session.fileName}`).toString('base64')}` },
      };
    }
    if (method === 'GET' && node && stored.has(node)) {
      const m = stored.get(node)!;
      if (edge === 'download' && expired.has(node)) return graphError(404, 'Media not found');
      if (edge === 'download')
        return { status: 200, body: { __raw: m.bytes.toString('base64'), type: m.type } };
      return {
        status: 200,
        body: {
          messaging_product: 'whatsapp',
          id: node,
          url: `${url}/bytes/${node}/download`,
          mime_type: m.type,
          file_size: m.bytes.length,
        },
      };
    }
    if (method === 'GET' && node && !edge) {
      return {
        status: 200,
        body: {
          id: node,
          display_phone_number: '+55 11 90000-0000',
          quality_rating: 'GREEN',
          verified_name: 'Test',
        },
      };
    }
    return graphError(400, `Unsupported request ${method} ${u.pathname}`);
  });

  return {
    url,
    accessToken,
    messages,
    templates,
    uploads,
    media,
    requests,
    failNext(count, status = 500, message = '', code?: number) {
      failures = { count, status, message, code };
    },
    dropNext(count, to) {
      drops = { count, to };
    },
    failNextWith(code, count, opts = {}) {
      limitFailures.push({ code, count, ...opts });
    },
    enforcePairRate(ms) {
      pairMs = ms;
    },
    refusals,
    setDelay(ms) {
      delayMs = ms;
    },
    statusWebhook(appSecret, phoneNumberId, statuses) {
      const body = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'waba',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '5511900000000', phone_number_id: phoneNumberId },
                  statuses: statuses.map((s) => ({
                    id: s.id,
                    status: s.status,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    recipient_id: s.recipientId ?? '5511999999999',
                    ...(s.status === 'failed' ? { errors: [webhookError(s.errorCode ?? 131026)] } : {}),
                  })),
                },
              },
            ],
          },
        ],
      });
      const signature = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
      return { body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } };
    },
    addMedia(bytes, mimeType) {
      const id = `in-media-${randomBytes(6).toString('hex')}`;
      stored.set(id, { bytes, type: mimeType });
      return id;
    },
    expireMedia(id) {
      expired.add(id);
    },
    messagesWebhook(appSecret, phoneNumberId, messages) {
      const body = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'waba',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '5511900000000', phone_number_id: phoneNumberId },
                  contacts: [...new Map(messages.map((m) => [m.from, m])).values()].map((m) => ({
                    profile: { name: m.name ?? `Person ${m.from.slice(-4)}` },
                    wa_id: m.from,
                  })),
                  messages: messages.map(({ from, id, name: _name, timestamp, type, text, ...rest }) => ({
                    from,
                    id: id ?? `wamid.in.${randomBytes(10).toString('hex')}`,
                    timestamp: String(timestamp ?? Math.floor(Date.now() / 1000)),
                    type: type ?? 'text',
                    ...(text !== undefined ? { text: { body: text } } : {}),
                    ...rest,
                  })),
                },
              },
            ],
          },
        ],
      });
      return { body, headers: sign(appSecret, body) };
    },
    close: () => closeServer(server),
  };
}
