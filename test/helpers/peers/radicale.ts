import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real CalDAV server (Debian's `radicale`) on a loopback ephemeral port, with a temporary storage
 * directory and plain-text htpasswd users: what the agenda's CalDAV client talks to in tests.
 */
export interface Radicale {
  /** http://127.0.0.1:PORT */
  url: string;
  /** A fresh user with one calendar (`/<user>/calendar/`), made with MKCALENDAR as a client would. */
  addUser(): Promise<{ username: string; password: string; calendarUrl: string }>;
  /** Stores a raw iCalendar object in a user's calendar (events made by someone else's client). */
  putObject(
    user: { username: string; password: string; calendarUrl: string },
    name: string,
    ics: string,
  ): Promise<void>;
  stop(): Promise<void>;
}

/** Is the radicale binary installed? Tests skip (with this reason) only when it is not. */
export function radicaleMissing(): string | null {
  try {
    execFileSync('radicale', ['--version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'radicale is not installed (Debian package `radicale`): CalDAV tests skipped';
  }
}

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

export async function startRadicale(): Promise<Radicale> {
  const dir = mkdtempSync(join(tmpdir(), 'radicale-'));
  const users = join(dir, 'users');
  writeFileSync(users, '');
  const config = join(dir, 'config');
  writeFileSync(
    config,
    [
      '[server]',
      'hosts = 127.0.0.1:0',
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${users}`,
      'htpasswd_encryption = plain',
      '[storage]',
      `filesystem_folder = ${join(dir, 'collections')}`,
      '[rights]',
      'type = owner_only',
      '[logging]',
      'level = info',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('radicale', ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /Listening on '\[?([\d.]+)\]?:(\d+)'/.exec(log);
      if (m) resolve(`http://${m[1]}:${m[2]}`);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`radicale exited ${code}: ${log}`)));
    setTimeout(() => reject(new Error(`radicale did not start: ${log}`)), 20_000).unref();
  });
  // Keep draining the log so the pipe never fills up.
  child.stdout?.resume();
  child.stderr?.resume();

  return {
    url,
    async addUser() {
      const username = `u${randomBytes(5).toString('hex')}`;
      const password = randomBytes(9).toString('base64url');
      appendFileSync(users, `${username}:${password}\n`);
      const calendarUrl = `${url}/${username}/calendar/`;
      const res = await fetch(calendarUrl, {
        method: 'MKCALENDAR',
        headers: { authorization: basic(username, password), 'content-type': 'application/xml' },
        body: `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>
<D:displayname>Work</D:displayname>
<C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>
</D:prop></D:set></C:mkcalendar>`,
      });
      if (res.status !== 201) throw new Error(`MKCALENDAR ${res.status}: ${await res.text()}`);
      return { username, password, calendarUrl };
    },
    async putObject(user, name, ics) {
      const res = await fetch(`${user.calendarUrl}${name}`, {
        method: 'PUT',
        headers: { authorization: basic(user.username, user.password), 'content-type': 'text/calendar' },
        body: ics,
      });
      if (res.status >= 300) throw new Error(`PUT ${res.status}: ${await res.text()}`);
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
