import { describe, expect, it } from 'vitest';
import { boundArguments, describeTokenProblem } from '../../src/mcp/confirmation.js';
import { canonicalJson } from '../../src/platform/canonical-json.js';

describe('confirmation helpers', () => {
  it('canonical JSON sorts keys and drops undefined values', () => {
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: null }] })).toBe('{"a":[{"c":null}],"b":1}');
    expect(canonicalJson({ nested: { y: 2, x: 1 } })).toBe(canonicalJson({ nested: { x: 1, y: 2 } }));
  });

  it("a file's base64 is bound by its size and digest, so a large attachment stays out of the request", () => {
    const big = 'A'.repeat(100_000);
    const bound = boundArguments({ conversationId: 7, base64: big, tags: ['x'] }) as Record<string, unknown>;
    expect(bound.conversationId).toBe(7);
    expect(bound.tags).toEqual(['x']);
    expect(bound.base64).toMatch(/^A{80}… \(100000 characters of base64, sha256 [0-9a-f]{64}\)$/);
    // One character more gives another digest: the approval binds the exact content.
    const other = boundArguments({ base64: `${big}B` }) as Record<string, unknown>;
    expect(other.base64).not.toBe(bound.base64);
    expect(boundArguments({ name: 'Ana' })).toEqual({ name: 'Ana' });
  });

  it('every text is shown whole, however long: what the person approves is what will be sent', () => {
    const text = `${'x'.repeat(110)}https://pay.example/now ${'y'.repeat(2_112)}`;
    expect(boundArguments({ message: { content: text } })).toEqual({ message: { content: text } });
    expect(boundArguments({ html: 'h'.repeat(100_000) })).toEqual({ html: 'h'.repeat(100_000) });
  });

  it('token problems say what to do next', () => {
    expect(describeTokenProblem('used')).toMatch(
      /already used.*Call the tool again without confirmationToken/,
    );
    expect(describeTokenProblem('expired')).toMatch(/expired/);
  });
});
