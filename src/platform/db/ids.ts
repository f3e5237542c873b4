import { randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Public identifier of a record: 24 random lowercase alphanumerics (DESIGN.md §4). */
export function newDocumentId(): string {
  const bytes = randomBytes(24);
  let out = '';
  // 252 = 7 * 36: rejecting bytes above it keeps the distribution uniform.
  for (let i = 0; out.length < 24; i++) {
    const b = i < bytes.length ? bytes[i] : randomBytes(1)[0];
    if (b < 252) out += alphabet[b % 36];
  }
  return out;
}

export const documentIdPattern = /^[a-z0-9]{24}$/;
