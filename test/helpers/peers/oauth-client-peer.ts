import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * An OAuth client's own web presence, as a remote agent has one: an HTTPS server on 127.0.0.1 (a self-signed
 * certificate made with openssl, its PEM given to the service as CRM_OUTBOUND_CA_FILE) serving its Client ID
 * Metadata Document, and an HTTP loopback redirect endpoint that records what the browser brings back.
 */
export async function startOauthClientPeer(clientName: string) {
  const dir = mkdtempSync(join(tmpdir(), 'crm-cimd-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const callbacks: URL[] = [];
  const waiters: ((u: URL) => void)[] = [];
  const redirect = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // Only the redirect URI counts: the browser also asks this origin for /favicon.ico after the page, and
    // that late request must not stand in for the next flow's callback.
    if (url.pathname !== '/callback') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
    callbacks.push(url);
    waiters.shift()?.(url);
  });
  const redirectPort = await listen(redirect);
  const redirectUri = `http://127.0.0.1:${redirectPort}/callback`;
  let clientId = '';
  const documents = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    if (req.url !== '/oauth/client.json') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        client_id: clientId,
        client_name: clientName,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      }),
    );
  });
  clientId = `https://127.0.0.1:${await listen(documents)}/oauth/client.json`;
  return {
    clientId,
    redirectUri,
    caFile: cert,
    /** The next request the browser brings to the redirect URI. */
    nextCallback: () => new Promise<URL>((resolve) => waiters.push(resolve)),
    close: async () => {
      await Promise.all([redirect, documents].map((s) => new Promise((r) => s.close(r))));
    },
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}
