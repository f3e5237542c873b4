/**
 * Lookups of user-given names in the server's own maps (query models, column maps, aliases). A plain object
 * literal inherits `constructor`, `toString`, `__proto__`, `valueOf`… from Object.prototype, so `map[key]`
 * with a key from a request finds a function where the map has nothing: `filters[constructor]` once
 * compiled to "no condition" and a bulk delete removed every contact. Every such lookup goes through here.
 */

/** The value `record` holds under `key` as its own property; inherited members are not entries. */
export function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether `key` is an own property of `record` (the `in` operator also answers true for inherited ones). */
export function hasOwnKey(record: object, key: string): boolean {
  return Object.hasOwn(record, key);
}
