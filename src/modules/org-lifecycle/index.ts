// The org-lifecycle module's public face (docs/lgpd.md, "Retention" and "Organizations that leave").

export { ImportRefusedError } from './archive-format.js';
export { tenantTables } from './catalogue.js';
export { importOrganizationArchive } from './import-reader.js';
