/**
 * `fn` over `items`, at most `limit` at a time, results in the items' order. For work that waits (HTTP, the
 * database) and may overlap; a rejection rejects the whole map (catch inside `fn` to keep going).
 */
export async function mapInPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}
