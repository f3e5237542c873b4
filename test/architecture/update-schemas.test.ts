import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';

/**
 * An update body must not reset what it was not given. zod applies a `.default()` inside an `.optional()`, so a
 * create shape with defaults made `.partial()` for an update sets those defaults on every PUT that leaves them out
 * (renaming the default PDF template once made it not the default). Every module's exported schemas are walked:
 * no object field may be an optional wrapping a default. Create shapes keep their defaults (a required-with-default
 * field is not optional).
 */
const modulesDir = resolve(import.meta.dirname, '../../src/modules');

function optionalDefaults(schema: z.ZodType, path: string, seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = (schema as { _zod?: { def?: Record<string, any> } })._zod?.def;
  if (!def) return [];
  if (def.type === 'optional' && def.innerType?._zod?.def?.type === 'default') return [path];
  const inner = [def.innerType, def.in, def.out, def.element].filter(Boolean) as z.ZodType[];
  const shape = def.type === 'object' ? Object.entries(def.shape as Record<string, z.ZodType>) : [];
  return [
    ...inner.flatMap((s) => optionalDefaults(s, path, seen)),
    ...shape.flatMap(([k, s]) => optionalDefaults(s, `${path}.${k}`, seen)),
  ];
}

describe('update schemas', () => {
  test('no exported schema has an optional field that carries a default', async () => {
    const found: string[] = [];
    for (const m of readdirSync(modulesDir)) {
      const file = resolve(modulesDir, m, 'schema.ts');
      if (!existsSync(file)) continue;
      for (const [name, value] of Object.entries(await import(file)))
        if (value instanceof z.ZodType) found.push(...optionalDefaults(value, `${m}.${name}`));
    }
    expect(found).toEqual([]);
  });
});
