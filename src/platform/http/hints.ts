import type { z } from 'zod';
import { documentIdPattern } from '../db/ids.js';

/**
 * Hints that turn a refusal into the request that would work (issue "first hour", item 7): the body wrapped
 * the wrong way, a key written under another name, a dynamic field outside `fields`, a retired route, a slug
 * where the path takes a documentId. Each function answers one sentence or undefined; the error handler
 * appends it to the message and puts it in `details.hint`. Nothing here decides whether a request is valid.
 */

/** Names integrators reach for (other CRMs, Strapi habits, the spec's own move body) → the attribute's name. */
const ALIASES: Record<string, string[]> = {
  currentPhase: [
    'phase',
    'phaseId',
    'phase_id',
    'stage',
    'stageId',
    'status',
    'currentPhaseId',
    'current_phase',
  ],
  assignees: ['assignee', 'assigneeId', 'assigneeIds', 'owner', 'responsible'],
  tags: ['tag', 'tagIds', 'labels'],
  fields: ['fieldData', 'customFields', 'custom_fields', 'fieldValues'],
  dueDate: ['due', 'due_date', 'deadline', 'dueAt'],
  contact: ['contactId', 'contact_id'],
};

const editDistance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length];
};

const normalise = (s: string) => s.replace(/[_-]/g, '').toLowerCase();

/** The known name an unknown one most likely meant: an alias, the same name in another case, or a typo. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  for (const k of known) if (Object.hasOwn(ALIASES, k) && ALIASES[k].includes(name)) return k;
  const n = normalise(name);
  const same = known.find((k) => normalise(k) === n);
  if (same) return same;
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    // Lengths further apart than the distance allowed cannot match: no work for long hostile names.
    if (Math.abs(n.length - normalise(k).length) > 2) continue;
    const d = editDistance(n, normalise(k));
    if (d <= Math.min(2, Math.floor(k.length / 3)) && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

/** `did you mean …?` for a filter or sort name, or undefined. */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  const k = closestName(name, known);
  return k ? `did you mean ${k}?` : undefined;
}

// ---- request bodies

type AnyZod = z.ZodType;
interface Def {
  type: string;
  innerType?: AnyZod;
  in?: AnyZod;
  shape?: Record<string, AnyZod>;
  element?: AnyZod;
  valueType?: AnyZod;
  getter?: () => AnyZod;
}
const defOf = (s: AnyZod) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under wrappers (optional, nullable, default, pipe, lazy). */
function unwrap(schema: AnyZod): AnyZod {
  let s = schema;
  for (let i = 0; i < 10; i++) {
    const d = defOf(s);
    const next = d.innerType ?? (d.type === 'pipe' ? d.in : undefined) ?? d.getter?.();
    if (!next) return s;
    s = next;
  }
  return s;
}

/** The (unwrapped) schema at `path` of a value, or undefined when the schema does not reach it. */
function schemaAt(schema: AnyZod, path: (string | number)[]): AnyZod | undefined {
  let s = unwrap(schema);
  for (const seg of path) {
    const d = defOf(s);
    if (d.type === 'object' && d.shape && typeof seg === 'string' && Object.hasOwn(d.shape, seg))
      s = unwrap(d.shape[seg]);
    else if (d.type === 'array' && d.element) s = unwrap(d.element);
    else if (d.type === 'record' && d.valueType) s = unwrap(d.valueType);
    else return undefined;
  }
  return s;
}

/** The object keys of the schema at `path`, or undefined when that is no object. */
function objectKeysAt(schema: AnyZod, path: (string | number)[]): string[] | undefined {
  const s = schemaAt(schema, path);
  const d = s && defOf(s);
  return d?.type === 'object' && d.shape ? Object.keys(d.shape) : undefined;
}

/** The zod type name of the schema at `path` ('object', 'record', …), or undefined. */
const typeAt = (schema: AnyZod, path: (string | number)[]) => {
  const s = schemaAt(schema, path);
  return s && defOf(s).type;
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const sketch = (keys: string[]) => `{${keys.map((k) => `"${k}": …`).join(', ')}}`;

export interface RawIssue {
  /** Path of the object at fault from the body's root (before the `data` prefix is dropped for the client). */
  path: (string | number)[];
  /** Keys of that object the schema does not know. */
  unknownKeys?: string[];
}

/** A hint for a body refused by its schema, or undefined. */
export function bodyHint(schema: AnyZod | undefined, body: unknown, issues: RawIssue[]): string | undefined {
  if (!schema || !isObject(body)) return undefined;
  const rootKeys = objectKeysAt(schema, []);
  if (!rootKeys) return undefined;
  // Wrapped when the route does not wrap: `{data: {phase}}` on move.
  if (!rootKeys.includes('data') && isObject(body.data) && !Object.hasOwn(body, rootKeys[0] ?? '')) {
    return `This route's body is not wrapped in "data": send ${sketch(rootKeys)} at the top level`;
  }
  // Not wrapped when the route wraps: `{title}` on create.
  if (rootKeys.length === 1 && rootKeys[0] === 'data' && !Object.hasOwn(body, 'data')) {
    const inner = objectKeysAt(schema, ['data']);
    if (inner && Object.keys(body).some((k) => inner.includes(k) || closestName(k, inner)))
      return `Wrap the attributes in "data": {"data": {${Object.keys(body)
        .slice(0, 3)
        .map((k) => `"${k}": …`)
        .join(', ')}}}`;
  }
  const hints: string[] = [];
  for (const issue of issues) {
    const known = issue.unknownKeys?.length ? objectKeysAt(schema, issue.path) : undefined;
    if (!known) continue;
    for (const name of issue.unknownKeys ?? []) {
      const meant = closestName(name, known);
      const home = known.find((k) => objectKeysAt(schema, [...issue.path, k])?.includes(name));
      if (meant) hints.push(`"${name}" is written "${meant}"`);
      else if (home) hints.push(`"${name}" goes under "${home}": {"${home}": {"${name}": …}}`);
      else if (known.includes('fields') && typeAt(schema, [...issue.path, 'fields']) === 'record')
        hints.push(
          `if "${name}" is a field of the board, send it under "fields": {"fields": {"${name}": …}}`,
        );
    }
  }
  return hints.length ? hints.join('; ') : undefined;
}

// ---- paths

/** Routes that never existed or were retired, with the one to use. */
const RETIRED: { pattern: RegExp; hint: string }[] = [
  {
    pattern: /^\/api\/cards(\/[^/]+)?(\/move)?\/?$/,
    hint: 'cards live under their board: GET /api/boards/{boardId}/cards lists them, /api/boards/{boardId}/cards/{documentId} is one card (GET /api/boards lists the boards)',
  },
  {
    pattern: /^\/api\/(phases|fields|tags)(\/.*)?$/,
    hint: 'phases, fields and tags belong to a board: GET /api/boards/{boardId} returns them with their documentIds',
  },
];

/** A hint for a route that does not exist, or undefined. */
export function routeHint(method: string, path: string): string | undefined {
  for (const r of RETIRED) if (r.pattern.test(path)) return r.hint;
  if (
    !path.startsWith('/api/') &&
    /^\/(boards|contacts|tasks|products|quotes|segments|organizations|memberships|teams|notifications|auth)(\/|$)/.test(
      path,
    )
  )
    return `the REST routes start with /api: ${method} /api${path}`;
  return undefined;
}

/**
 * A hint for a 404 on a route that exists when a path parameter is not a documentId (a slug, a name):
 * the paths take documentIds; the collection that finds it is named.
 */
export function pathParamHint(routeUrl: string | undefined, params: unknown): string | undefined {
  if (!routeUrl || !isObject(params)) return undefined;
  for (const [name, raw] of Object.entries(params)) {
    if (name !== 'id' && !name.endsWith('Id')) continue;
    if (typeof raw !== 'string' || documentIdPattern.test(raw) || /^\d+$/.test(raw)) continue;
    const at = routeUrl.indexOf(`:${name}`);
    if (at < 0) continue;
    // The collection is the route up to this parameter, with the earlier parameters filled in.
    const collection = routeUrl
      .slice(0, at)
      .replace(/\/$/, '')
      .replace(/:(\w+)/g, (_, p: string) =>
        typeof params[p] === 'string' ? (params[p] as string) : `{${p}}`,
      );
    const find = /\/api\/boards$/.test(collection)
      ? `GET ${collection}?filters[slug][$eq]=${encodeURIComponent(raw)}`
      : `GET ${collection}`;
    return `"${raw}" is not a documentId: the path takes the record's documentId (24 lowercase letters and digits), not its slug or name; ${find} finds it`;
  }
  return undefined;
}
