import { describe, expect, it } from 'vitest';
import { boundArguments, describeTokenProblem } from '../../src/mcp/confirmation.js';
import { canonicalJson } from '../../src/platform/canonical-json.js';

describe('confirmation helpers', () => {
  it('canonical JSON sorts keys and drops undefined values', () => {
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: null }] })).toBe('{"a":[{"c":null}],"b":1}');
    expect(canonicalJson({ nested: { y: 2, x: 1 } })).toBe(canonicalJson({ nested: { x: 1, y: 2 } }));
  });

  it('long strings are bound by their size and digest, so a large attachment stays out of the request', () => {
    const big = 'A'.repeat(100_000);
    const bound = boundArguments({ conversationId: 7, content: big, tags: ['x'] }) as Record<string, unknown>;
    expect(bound.conversationId).toBe(7);
    expect(bound.tags).toEqual(['x']);
    expect(bound.content).toMatch(/^A{80}… \(100000 characters, sha256 [0-9a-f]{64}\)$/);
    // One character more gives another digest: the approval binds the exact content.
    const other = boundArguments({ content: `${big}B` }) as Record<string, unknown>;
    expect(other.content).not.toBe(bound.content);
    expect(boundArguments({ name: 'Ana' })).toEqual({ name: 'Ana' });
  });

  it('token problems say what to do next', () => {
    expect(describeTokenProblem('used')).toMatch(
      /already used.*Call the tool again without confirmationToken/,
    );
    expect(describeTokenProblem('expired')).toMatch(/expired/);
  });
});
