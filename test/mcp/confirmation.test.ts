import { describe, expect, it } from 'vitest';
import { ConfirmationTokens, canonicalJson, describeTokenProblem } from '../../src/mcp/confirmation.js';

describe('ConfirmationTokens', () => {
  const args = { name: 'Ana', tags: ['a', 'b'], nested: { y: 2, x: 1 } };

  it('confirms once the exact tool and arguments, whatever their key order', () => {
    const tokens = new ConfirmationTokens(60_000);
    const { token } = tokens.issue('crm.create_contact', args);
    expect(
      tokens.redeem(token, 'crm.create_contact', { nested: { x: 1, y: 2 }, tags: ['a', 'b'], name: 'Ana' }),
    ).toBe(undefined);
    expect(tokens.redeem(token, 'crm.create_contact', args)).toBe('used');
  });

  it('refuses other arguments, another tool, a forged expiry and garbage', () => {
    const tokens = new ConfirmationTokens(60_000);
    const { token } = tokens.issue('crm.create_contact', args);
    expect(tokens.redeem(token, 'crm.create_contact', { ...args, name: 'Bia' })).toBe('mismatch');
    expect(tokens.redeem(token, 'crm.update_contact', args)).toBe('mismatch');
    expect(tokens.redeem(token, 'crm.create_contact', { ...args, tags: ['b', 'a'] })).toBe('mismatch');
    const [nonce, , sig] = token.split('.');
    expect(tokens.redeem(`${nonce}.${Date.now() + 10 ** 9}.${sig}`, 'crm.create_contact', args)).toBe(
      'mismatch',
    );
    expect(tokens.redeem('nonsense', 'crm.create_contact', args)).toBe('malformed');
    // A failed attempt does not spend the token.
    expect(tokens.redeem(token, 'crm.create_contact', args)).toBe(undefined);
  });

  it('expires, and tokens of another server instance are refused', () => {
    let now = 1_000_000;
    const tokens = new ConfirmationTokens(5_000, () => now);
    const issued = tokens.issue('crm.delete_product', { productId: 'p' });
    expect(issued.expiresAt).toBe(new Date(1_005_000).toISOString());
    now += 5_000;
    expect(tokens.redeem(issued.token, 'crm.delete_product', { productId: 'p' })).toBe('expired');
    // Another instance running since before the token was issued: not a restart, a token it never issued.
    const other = new ConfirmationTokens(5_000, () => now);
    now += 1_000;
    expect(other.redeem(tokens.issue('crm.x', {}).token, 'crm.x', {})).toBe('mismatch');
  });

  it('canonical JSON sorts keys and drops undefined values', () => {
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: null }] })).toBe('{"a":[{"c":null}],"b":1}');
  });

  it('a token issued before the tool server restarted is refused as expired, not as a mismatch', () => {
    let now = 1_000_000;
    const before = new ConfirmationTokens(60_000, () => now);
    const { token } = before.issue('crm.create_contact', args);
    now += 1000;
    const after = new ConfirmationTokens(60_000, () => now);
    expect(after.redeem(token, 'crm.create_contact', args)).toBe('restarted');
    expect(describeTokenProblem('restarted')).toMatch(/expired: the tool server restarted/);
  });
});
