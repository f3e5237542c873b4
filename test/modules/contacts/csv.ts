import type { Tenant } from '../../helpers/app.js';

/** POST /contacts/import with a text/csv body (`query`: `?dryRun=true` and the like). */
export function postCsv(t: Tenant, csv: string, query = '') {
  return t.api.request({
    method: 'POST',
    url: `/api/contacts/import${query}`,
    headers: { 'content-type': 'text/csv' },
    payload: csv,
  });
}
