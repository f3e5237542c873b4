import type { SchemaVersion } from '../../platform/backup/backup.js';

/**
 * The organization export file (docs/lgpd.md, "Organizations that leave"): a gzip'd tar, read and written in
 * streams (src/platform/backup/tar.ts), entries in this order:
 *
 * - `organization.json`: the header (format, schema version, the organization's row, its members' users);
 * - `tables/<table>/<part>.ndjson`: the organization's rows of each tenant table, one JSON object per line
 *   (`row_to_json`: column names as keys, ids kept), tables parents first, at most EXPORT_PAGE rows a part;
 * - `files/<area>/<name>`: the organization's files (`<CRM_DATA_DIR>/<area>/<organization id>/<name>`);
 * - `manifest.json`: rows per table and every file with its size and SHA-256, checked by the import.
 */
export const ORG_EXPORT_FORMAT = 'crm-organization-export';
export const ORG_EXPORT_FORMAT_VERSION = 1;
export const EXPORT_PAGE = 1000;

export interface ExportedUser {
  id: number;
  documentId: string;
  username: string;
  email: string;
  blocked: boolean;
  confirmed: boolean;
}

export interface ExportHeader {
  format: typeof ORG_EXPORT_FORMAT;
  formatVersion: number;
  software: string;
  schema: SchemaVersion;
  exportedAt: string;
  /** The organizations row as `row_to_json` gives it (snake_case columns). */
  organization: Record<string, unknown> & { id: number; document_id: string; slug: string };
  /** The users of its memberships (no password hashes: docs/lgpd.md). */
  users: ExportedUser[];
}

export interface ExportManifest {
  rows: Record<string, number>;
  files: { path: string; size: number; sha256: string }[];
}

/** The names an export may hold: anything else is refused before it is read. */
export const ENTRY =
  /^(organization\.json|manifest\.json|tables\/[a-z_][a-z0-9_]{0,62}\/\d{6}\.ndjson|files\/(uploads|imports)\/[A-Za-z0-9][A-Za-z0-9._-]{0,99})$/;

/** The import refused the file (nothing was written): the message says why and what to do. */
export class ImportRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportRefusedError';
  }
}
