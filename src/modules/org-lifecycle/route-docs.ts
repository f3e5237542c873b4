/** What the org-lifecycle routes share: their tag and the note on the file (docs/lgpd.md). */
export const tags = ['Organizations'];
export const fileNote =
  'The file is a gzip’d tar: organization.json (the organization and its members’ users, no passwords), ' +
  'tables/<table>/<part>.ndjson (every row of every tenant table, ids kept), files/<area>/<name> (uploads), ' +
  'manifest.json; `crm org import FILE` loads it into another instance (docs/lgpd.md).';
