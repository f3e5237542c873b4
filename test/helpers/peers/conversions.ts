import { randomBytes } from 'node:crypto';
import { closeServer, startJsonServer } from './http.js';

/**
 * A local Conversions API (Meta shape): `POST /{version}/{pixelId}/events` with a JSON body
 * `{ data: [server events], access_token, test_event_code? }`; answers `{ events_received, fbtrace_id }`, or the
 * Graph error envelope for a wrong token (code 190) or a malformed event (code 100). `failNext` makes the next
 * calls answer 503.
 */
export interface ConversionsPeer {
  url: string;
  accessToken: string;
  received: { pixelId: string; version: string; body: any }[];
  failNext: number;
  close(): Promise<void>;
}

const graphError = (status: number, code: number, message: string) => ({
  status,
  body: { error: { message, type: 'OAuthException', code, fbtrace_id: randomBytes(6).toString('hex') } },
});

export async function startConversionsPeer(opts: { accessToken?: string } = {}): Promise<ConversionsPeer> {
  const peer = {
    accessToken: opts.accessToken ?? `EAAB${randomBytes(12).toString('hex')}`,
    received: [] as ConversionsPeer['received'],
    failNext: 0,
  };
  const { server, url } = await startJsonServer(async (req, body, u) => {
    const m = /^\/(v\d+\.\d+)\/([\w-]+)\/events$/.exec(u.pathname);
    if (req.method !== 'POST' || !m) return graphError(404, 803, 'Unknown path components');
    if (peer.failNext > 0) {
      peer.failNext--;
      return graphError(503, 2, 'Service temporarily unavailable');
    }
    let json: any;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return graphError(400, 100, 'Invalid JSON');
    }
    if (json.access_token !== peer.accessToken) return graphError(400, 190, 'Invalid OAuth access token.');
    if (!Array.isArray(json.data) || json.data.length === 0) return graphError(400, 100, 'data is required');
    for (const e of json.data) {
      const ok =
        typeof e.event_name === 'string' &&
        Number.isInteger(e.event_time) &&
        typeof e.event_id === 'string' &&
        typeof e.action_source === 'string' &&
        e.user_data &&
        typeof e.user_data === 'object';
      if (!ok)
        return graphError(
          400,
          100,
          'Invalid parameter: each event needs event_name, event_time, event_id, action_source, user_data',
        );
      for (const k of ['em', 'ph'])
        for (const h of [e.user_data[k] ?? []].flat())
          if (!/^[a-f0-9]{64}$/.test(h)) return graphError(400, 100, `user_data.${k} must be SHA-256 hashes`);
    }
    peer.received.push({ version: m[1], pixelId: m[2], body: json });
    return {
      status: 200,
      body: { events_received: json.data.length, messages: [], fbtrace_id: randomBytes(6).toString('hex') },
    };
  });
  return Object.assign(peer, { url, close: () => closeServer(server) });
}
