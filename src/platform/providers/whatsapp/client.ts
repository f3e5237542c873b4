import type { Config } from '../../../config.js';
import { OutboundBlockedError, ResponseTooLargeError, sharedSafeFetch } from '../../outbound/safe-fetch.js';
import { ProviderError, providerRequest } from '../provider-error.js';
import { graphError } from './errors.js';

/**
 * WhatsApp Cloud API (Graph-style): messages, message templates, resumable uploads and the phone number's
 * health, against CRM_WHATSAPP_API_URL. Errors carry Graph's `error.message` (with `error_data.details`) and
 * `error.code`; the codes of WhatsApp's limits decide whether a retry can help (errors.ts).
 */

export interface WhatsAppCredentials {
  accessToken: string;
  phoneNumberId: string;
  businessAccountId: string;
  /** The Meta app id: resumable uploads (template media handles) are made on the app. */
  appId?: string;
}

export interface TemplateComponent {
  type: string;
  [key: string]: unknown;
}

export interface ProviderTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: TemplateComponent[];
}

export interface WhatsAppProvider {
  sendTemplate(
    to: string,
    template: { name: string; language: string; components?: unknown[] },
  ): Promise<{ messageId: string }>;
  sendText(to: string, body: string): Promise<{ messageId: string }>;
  /** Sends media uploaded with uploadMedia (image, audio, video, document). */
  sendMedia(
    to: string,
    kind: 'image' | 'audio' | 'video' | 'document',
    media: { id: string; caption?: string; filename?: string },
  ): Promise<{ messageId: string }>;
  /** GET /{media-id} for its short-lived URL, then the bytes from that URL (with the token), at most maxBytes. */
  downloadMedia(mediaId: string, maxBytes: number): Promise<{ bytes: Buffer; mimeType: string }>;
  /** POST /{phone-number-id}/media (multipart): the media id a message can send. */
  uploadMedia(file: { filename: string; mimeType: string; bytes: Buffer }): Promise<string>;
  health(): Promise<{ displayPhoneNumber: string | null; qualityRating: string | null }>;
  listTemplates(): Promise<ProviderTemplate[]>;
  createTemplate(def: {
    name: string;
    language: string;
    category: string;
    components: TemplateComponent[];
  }): Promise<{ id: string; status: string; category: string }>;
  deleteTemplate(name: string, id?: string): Promise<void>;
  uploadMediaHandle(file: { filename: string; mimeType: string; bytes: Buffer }): Promise<string>;
}

type WhatsAppConfig = Pick<
  Config,
  'CRM_WHATSAPP_API_URL' | 'CRM_WHATSAPP_API_VERSION' | 'CRM_PROVIDER_TIMEOUT_MS' | 'CRM_OUTBOUND_ALLOWLIST'
>;

export function whatsappProvider(config: WhatsAppConfig, creds: WhatsAppCredentials): WhatsAppProvider {
  const base = `${config.CRM_WHATSAPP_API_URL.replace(/\/+$/, '')}/${config.CRM_WHATSAPP_API_VERSION}`;
  const timeoutMs = config.CRM_PROVIDER_TIMEOUT_MS;
  const auth = { authorization: `Bearer ${creds.accessToken}` };
  const call = <T>(path: string, init: { method?: string; body?: unknown } = {}) =>
    providerRequest<T>(
      'whatsapp',
      `${base}/${path}`,
      {
        method: init.method,
        headers: init.body ? { ...auth, 'content-type': 'application/json' } : auth,
        body: init.body ? JSON.stringify(init.body) : undefined,
        timeoutMs,
      },
      graphError,
    );
  const send = async (payload: Record<string, unknown>) => {
    const res = await call<{ messages: { id: string }[] }>(`${enc(creds.phoneNumberId)}/messages`, {
      method: 'POST',
      body: { messaging_product: 'whatsapp', recipient_type: 'individual', ...payload },
    });
    return { messageId: res.messages[0].id };
  };

  return {
    sendTemplate: (to, t) =>
      send({
        to,
        type: 'template',
        template: { name: t.name, language: { code: t.language }, components: t.components ?? [] },
      }),
    sendText: (to, body) => send({ to, type: 'text', text: { body, preview_url: false } }),
    sendMedia: (to, kind, media) =>
      send({
        to,
        type: kind,
        [kind]: {
          id: media.id,
          ...(media.caption && kind !== 'audio' ? { caption: media.caption } : {}),
          ...(kind === 'document' && media.filename ? { filename: media.filename } : {}),
        },
      }),
    async downloadMedia(mediaId, maxBytes) {
      const meta = await call<{ url?: string; mime_type?: string; file_size?: number }>(enc(mediaId));
      if (!meta.url || !/^https?:\/\//.test(meta.url))
        throw new ProviderError('whatsapp', 'media has no download URL', 502, true);
      if ((meta.file_size ?? 0) > maxBytes)
        throw new ProviderError('whatsapp', `media is larger than ${maxBytes} bytes`, 413, true);
      // The URL is the provider's answer, not ours: it goes through the SSRF guard like any user-given URL
      // (internal addresses refused, on every redirect too), and the token never follows a redirect to another
      // origin (safe-fetch.ts drops it).
      const download = sharedSafeFetch(config.CRM_OUTBOUND_ALLOWLIST, { maxResponseBytes: maxBytes });
      let res: Response;
      try {
        res = await download(meta.url, {
          headers: auth,
          signal: AbortSignal.timeout(Math.max(timeoutMs, 60_000)),
        });
      } catch (err) {
        const blocked = [err, (err as Error).cause].find((e) => e instanceof OutboundBlockedError);
        if (blocked)
          throw new ProviderError(
            'whatsapp',
            `media download refused: ${(blocked as Error).message}`,
            0,
            true,
          );
        throw new ProviderError('whatsapp', `media download failed (${(err as Error).message})`, 0, false);
      }
      if (!res.ok)
        throw new ProviderError(
          'whatsapp',
          `media download: HTTP ${res.status}`,
          res.status,
          res.status < 500,
        );
      const bytes = await res.arrayBuffer().then(
        (b) => Buffer.from(b),
        (err: unknown) => {
          if (err instanceof ResponseTooLargeError || (err as Error).cause instanceof ResponseTooLargeError)
            throw new ProviderError('whatsapp', `media is larger than ${maxBytes} bytes`, 413, true);
          throw new ProviderError('whatsapp', `media download failed (${(err as Error).message})`, 0, false);
        },
      );
      if (bytes.length > maxBytes)
        throw new ProviderError('whatsapp', `media is larger than ${maxBytes} bytes`, 413, true);
      return {
        bytes,
        mimeType: meta.mime_type ?? res.headers.get('content-type') ?? 'application/octet-stream',
      };
    },
    async uploadMedia(file) {
      const form = new FormData();
      form.set('messaging_product', 'whatsapp');
      form.set('type', file.mimeType);
      form.set('file', new Blob([new Uint8Array(file.bytes)], { type: file.mimeType }), file.filename);
      const res = await providerRequest<{ id: string }>(
        'whatsapp',
        `${base}/${enc(creds.phoneNumberId)}/media`,
        { method: 'POST', headers: auth, body: form, timeoutMs: Math.max(timeoutMs, 60_000) },
        graphError,
      );
      return res.id;
    },
    async health() {
      const res = await call<{ display_phone_number?: string; quality_rating?: string }>(
        `${enc(creds.phoneNumberId)}?fields=display_phone_number,quality_rating,verified_name`,
      );
      return {
        displayPhoneNumber: res.display_phone_number ?? null,
        qualityRating: res.quality_rating ?? null,
      };
    },
    async listTemplates() {
      const out: ProviderTemplate[] = [];
      let after: string | undefined;
      // Graph pages with cursors; a bound keeps a misbehaving provider from looping us forever.
      for (let page = 0; page < 50; page++) {
        const q = new URLSearchParams({
          limit: '100',
          fields: 'id,name,language,category,status,components',
        });
        if (after) q.set('after', after);
        const res = await call<{
          data: ProviderTemplate[];
          paging?: { cursors?: { after?: string }; next?: string };
        }>(`${enc(creds.businessAccountId)}/message_templates?${q}`);
        out.push(...res.data);
        after = res.paging?.next ? res.paging.cursors?.after : undefined;
        if (!after) break;
      }
      return out;
    },
    createTemplate: (def) =>
      call(`${enc(creds.businessAccountId)}/message_templates`, { method: 'POST', body: def }),
    async deleteTemplate(name, id) {
      const q = new URLSearchParams({ name });
      if (id) q.set('hsm_id', id);
      await call(`${enc(creds.businessAccountId)}/message_templates?${q}`, { method: 'DELETE' });
    },
    async uploadMediaHandle(file) {
      if (!creds.appId) throw new Error('appId missing');
      // Resumable upload: open a session on the app, then send the bytes (offset 0) and get the handle `h`.
      const q = new URLSearchParams({
        file_name: file.filename,
        file_length: String(file.bytes.length),
        file_type: file.mimeType,
      });
      const session = await call<{ id: string }>(`${enc(creds.appId)}/uploads?${q}`, { method: 'POST' });
      const res = await providerRequest<{ h: string }>(
        'whatsapp',
        `${base}/${session.id}`,
        {
          method: 'POST',
          headers: { authorization: `OAuth ${creds.accessToken}`, file_offset: '0' },
          body: file.bytes,
          timeoutMs,
        },
        graphError,
      );
      return res.h;
    },
  };
}

// Ids come from settings people type: never let one add a path segment or query.
const enc = (s: string) => encodeURIComponent(s);
