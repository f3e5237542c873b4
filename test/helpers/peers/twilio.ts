import { randomBytes } from 'node:crypto';
import { closeServer, startJsonServer } from './http.js';

/** A local Twilio Messages API: form-encoded sends under /2010-04-01/Accounts/{sid}, HTTP basic auth. */
export interface TwilioPeer {
  url: string;
  accountSid: string;
  authToken: string;
  messages: { sid: string; to: string; from: string; body: string }[];
  close(): Promise<void>;
}

export async function startTwilioPeer(
  opts: { accountSid?: string; authToken?: string } = {},
): Promise<TwilioPeer> {
  const accountSid = opts.accountSid ?? `AC${randomBytes(16).toString('hex')}`;
  const authToken = opts.authToken ?? randomBytes(16).toString('hex');
  const messages: TwilioPeer['messages'] = [];
  const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
  const { server, url } = await startJsonServer(async (req, body, u) => {
    if (req.headers.authorization !== expected)
      return {
        status: 401,
        body: {
          code: 20003,
          message: 'Authenticate',
          more_info: 'https://www.twilio.com/docs/errors/20003',
          status: 401,
        },
      };
    const base = `/2010-04-01/Accounts/${accountSid}`;
    if (req.method === 'GET' && u.pathname === `${base}.json`)
      return { status: 200, body: { sid: accountSid, status: 'active', friendly_name: 'Test account' } };
    if (req.method === 'POST' && u.pathname === `${base}/Messages.json`) {
      if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
        return { status: 400, body: { code: 20001, message: 'Form body expected', status: 400 } };
      const form = new URLSearchParams(body.toString('utf8'));
      const to = form.get('To') ?? '';
      if (!/^\+\d{8,15}$/.test(to))
        return {
          status: 400,
          body: { code: 21211, message: `The 'To' number ${to} is not a valid phone number.`, status: 400 },
        };
      const sid = `SM${randomBytes(16).toString('hex')}`;
      messages.push({ sid, to, from: form.get('From') ?? '', body: form.get('Body') ?? '' });
      return {
        status: 201,
        body: {
          sid,
          status: 'queued',
          to,
          from: form.get('From'),
          body: form.get('Body'),
          account_sid: accountSid,
        },
      };
    }
    return {
      status: 404,
      body: { code: 20404, message: 'The requested resource was not found', status: 404 },
    };
  });
  return { url, accountSid, authToken, messages, close: () => closeServer(server) };
}
