import { randomFillSync } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random bytes drawn from the CSPRNG 8 KB at a time: an import makes ids by the million, and one `randomBytes(24)`
 * call per id cost it 3 % of its Node time (the same pooling `crypto.randomUUID` does).
 */
const pool = Buffer.alloc(8192);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++];
}

/** Public identifier of a record: 24 random lowercase alphanumerics (DESIGN.md §4). */
export function newDocumentId(): string {
  let out = '';
  // 252 = 7 * 36: rejecting bytes above it keeps the distribution uniform.
  while (out.length < 24) {
    const b = randomByte();
    if (b < 252) out += alphabet[b % 36];
  }
  return out;
}

export const documentIdPattern = /^[a-z0-9]{24}$/;
