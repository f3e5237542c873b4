import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMailer } from '../../src/platform/mail/mailer.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

let smtp: TestSmtp;
let dir: string;
beforeAll(async () => {
  smtp = await startSmtp();
  dir = mkdtempSync(join(tmpdir(), 'crm-mail-'));
});
afterAll(async () => {
  await smtp.close();
  rmSync(dir, { recursive: true, force: true });
});

test('without SMTP_URL every message is an .eml file in <data dir>/outbox', async () => {
  const mailer = createMailer({ CRM_DATA_DIR: dir, MAIL_FROM: 'CRM <crm@example.test>' });
  const { messageId } = await mailer.send({
    to: 'ana@example.test',
    subject: 'Hello Ana',
    text: 'Body text',
  });
  const files = readdirSync(join(dir, 'outbox'));
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(/\.eml$/);
  const eml = readFileSync(join(dir, 'outbox', files[0]), 'utf8');
  expect(eml).toContain('To: ana@example.test');
  expect(eml).toContain('Subject: Hello Ana');
  expect(eml).toContain(`Message-ID: ${messageId}`);
  expect(eml).toContain('Body text');
});

test('with SMTP_URL the message is delivered over SMTP', async () => {
  const mailer = createMailer({ CRM_DATA_DIR: dir, MAIL_FROM: 'CRM <crm@example.test>', SMTP_URL: smtp.url });
  await mailer.send({
    to: ['bo@example.test'],
    subject: 'Over the wire',
    text: 'plain',
    html: '<p>html</p>',
  });
  await smtp.waitFor((m) => m.some((x) => x.subject === 'Over the wire'));
  const mail = smtp.received.find((x) => x.subject === 'Over the wire')!;
  expect(mail.to).toEqual(['bo@example.test']);
  expect(mail.from).toBe('crm@example.test');
  expect(mail.raw).toContain('<p>html</p>');
  mailer.close();
});
