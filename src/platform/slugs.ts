/** Slugs (organizations, board fields and phases): lowercase ASCII letters, digits and inner dashes, at most 63. */
export const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A slug from a name: accents dropped, anything else a dash, at most 60 characters ('item' when nothing is left). */
export function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return s || 'item';
}
