import { randomBytes } from 'node:crypto';
import { expect, test } from 'vitest';
import { secretBox } from '../../src/platform/secrets/encryption.js';
import { getApp } from '../helpers/app.js';

test('AES-256-GCM secrets: random IV, bound to their context, tamper-evident; CRM_ENCRYPTION_KEY is validated', async () => {
  const { db } = await getApp();
  const box = await secretBox({ CRM_ENCRYPTION_KEY: undefined }, db);
  const a = box.encrypt('app-password', 'calendar_connection:1:2');
  const b = box.encrypt('app-password', 'calendar_connection:1:2');
  expect(a).not.toBe(b);
  expect(a).not.toContain('app-password');
  expect(box.decrypt(a, 'calendar_connection:1:2')).toBe('app-password');
  expect(() => box.decrypt(a, 'calendar_connection:1:3')).toThrow();
  const [v, iv, tag, data] = a.split('.');
  const flipped = Buffer.from(data, 'base64url');
  flipped[0] ^= 1;
  expect(() =>
    box.decrypt([v, iv, tag, flipped.toString('base64url')].join('.'), 'calendar_connection:1:2'),
  ).toThrow();

  const keyed = await secretBox({ CRM_ENCRYPTION_KEY: randomBytes(32).toString('hex') }, { ...db });
  expect(keyed.decrypt(keyed.encrypt('x', 'c'), 'c')).toBe('x');
  expect(() => keyed.decrypt(a, 'calendar_connection:1:2')).toThrow();
  await expect(secretBox({ CRM_ENCRYPTION_KEY: 'short' }, { ...db })).rejects.toThrow(/32 bytes/);
});
