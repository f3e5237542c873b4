import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../config.js';
import type { Database } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { asMultipartError } from '../../platform/http/multipart.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import { loadBoardForRead, publicBoardTransaction } from '../boards/index.js';
import { requireStorageLeft, reserveStorage, storagePath } from './files.js';
import * as repo from './repo.js';

/**
 * The public upload (docs/cards.md): a file for a file-type field, stored under
 * `<CRM_DATA_DIR>/uploads/<organization id>/<file documentId>` (never a client-chosen path) and
 * registered in `card_files`, whose documentId is the file reference a card's file field takes. The
 * organization's storage quota is checked before receiving and, under its lock, before the row (files.ts).
 */

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Accepted types, each with the leading bytes the content must start with (null: text, no NUL byte). */
const ACCEPTED: Record<string, Buffer[] | null> = {
  'application/pdf': [Buffer.from('%PDF-')],
  'image/png': [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  'image/jpeg': [Buffer.from([0xff, 0xd8, 0xff])],
  'image/gif': [Buffer.from('GIF87a'), Buffer.from('GIF89a')],
  'image/webp': [Buffer.from('RIFF')],
  'text/plain': null,
  'text/csv': null,
  'application/msword': [Buffer.from([0xd0, 0xcf, 0x11, 0xe0])],
  'application/vnd.ms-excel': [Buffer.from([0xd0, 0xcf, 0x11, 0xe0])],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': [Buffer.from('PK\x03\x04')],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': [Buffer.from('PK\x03\x04')],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': [Buffer.from('PK\x03\x04')],
};
export const ACCEPTED_TYPES = Object.keys(ACCEPTED);

function contentMatches(mimeType: string, head: Buffer): boolean {
  const signatures = ACCEPTED[mimeType];
  if (signatures === null) return !head.includes(0);
  if (mimeType === 'image/webp' && head.subarray(8, 12).toString('latin1') !== 'WEBP') return false;
  return signatures.some((sig) => head.subarray(0, sig.length).equals(sig));
}

/** Keeps a display name: no path, no control characters, at most 200 characters. */
function displayName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const clean = [...base]
    .filter((c) => c.charCodeAt(0) >= 32 && c.charCodeAt(0) !== 127)
    .join('')
    .trim();
  return (clean || 'file').slice(0, 200);
}

export interface IncomingFile {
  filename: string;
  mimetype: string;
  file: Readable & { truncated?: boolean };
}

export async function storePublicUpload(
  db: Database,
  config: Config,
  boardId: string,
  incoming: IncomingFile,
) {
  const mimeType = incoming.mimetype.toLowerCase().split(';')[0].trim();
  if (!(mimeType in ACCEPTED)) {
    incoming.file.resume();
    throw new AppError('UnsupportedMediaTypeError', `Files of type ${mimeType} are not accepted`, {
      acceptedTypes: ACCEPTED_TYPES,
    });
  }
  // A short transaction to find the board (and refuse an organization whose quota is used up before
  // receiving anything); the file is written outside any transaction.
  const { orgId, boardRowId } = await publicBoardTransaction(db, boardId, async (tx, org, board) => {
    await requireStorageLeft(tx, config, org);
    return { orgId: org, boardRowId: board.id };
  }).catch((err) => {
    incoming.file.resume();
    throw err;
  });
  const documentId = newDocumentId();
  const storageKey = `${orgId}/${documentId}`;
  const path = storagePath(config, storageKey);
  await mkdir(dirname(path), { recursive: true });

  const hash = createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  incoming.file.on('data', (chunk: Buffer) => {
    size += chunk.length;
    hash.update(chunk);
    if (head.length < 16) head = Buffer.concat([head, chunk]).subarray(0, 16);
  });
  try {
    await pipeline(incoming.file, createWriteStream(path));
    if (incoming.file.truncated) throw tooLarge();
    if (size === 0)
      throw new AppError('ValidationError', 'The file is empty', {
        errors: [{ path: ['file'], message: 'is empty' }],
      });
    if (!contentMatches(mimeType, head))
      throw new AppError('UnsupportedMediaTypeError', `The content is not a ${mimeType} file`, {
        acceptedTypes: ACCEPTED_TYPES,
      });
    const row = await publicBoardTransaction(db, boardId, async (tx) => {
      await reserveStorage(tx, config, orgId, size);
      return repo.insertFile(tx, orgId, {
        documentId,
        boardId: boardRowId,
        name: displayName(incoming.filename),
        mimeType,
        size,
        sha256: hash.digest('hex'),
        storageKey,
      });
    });
    return { documentId: row.documentId, name: row.name, mimeType: row.mimeType, size: row.size };
  } catch (err) {
    await unlink(path).catch(() => {});
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    // busboy's bare Error is a malformed or truncated body (a 400); a failing disk keeps its code (a 500).
    throw asMultipartError(err);
  }
}

/** An uploaded file of a board the caller can see, for download. */
export async function openBoardFile(ctx: TenantContext, config: Config, boardId: string, fileId: string) {
  const row = await ctx.transaction(async (tx) => {
    const { board } = await loadBoardForRead(tx, ctx, boardId);
    return repo.findFile(tx, ctx.orgId, board.id, fileId);
  });
  if (!row) throw notFound('File');
  // Opened before answering: a file removed meanwhile (its card deleted) is a 404, not a broken stream.
  const handle = await open(storagePath(config, row.storageKey)).catch(() => undefined);
  if (!handle) throw notFound('File');
  return { name: row.name, mimeType: row.mimeType, size: row.size, stream: handle.createReadStream() };
}

const tooLarge = () =>
  new AppError('PayloadTooLargeError', `Files are limited to ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`, {
    maxBytes: MAX_UPLOAD_BYTES,
  });
