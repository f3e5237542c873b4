import { ApiError, client, unwrap } from '../api';
import { saveBlob } from './save-blob';

/** A file uploaded for a board's file field: its documentId (or the whole object) is the field's value. */
export interface BoardFile {
  documentId: string;
  name: string;
  mimeType: string;
  size: number;
}

/**
 * Uploads one file for a file field of the board (POST /api/boards/{boardId}/public-upload, multipart part
 * `file`: the one upload endpoint, used by the public form and the signed-in forms alike); a refusal is an
 * ApiError carrying the service's envelope.
 */
export async function uploadBoardFile(boardId: string, file: File): Promise<BoardFile> {
  const body = new FormData();
  body.append('file', file);
  const res = await fetch(`/api/boards/${encodeURIComponent(boardId)}/public-upload`, {
    method: 'POST',
    body,
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok)
    throw new ApiError(
      res.status,
      json.error?.name ?? 'Error',
      json.error?.message ?? res.statusText,
      json.error?.details,
    );
  return json as BoardFile;
}

/** Where a file of the board is downloaded (with the session's token: see downloadBoardFile). */
export const boardFileUrl = (boardId: string, id: string) =>
  `/api/boards/${encodeURIComponent(boardId)}/files/${encodeURIComponent(id)}`;

/**
 * Saves a file of the board under its name. The download (GET /api/boards/{boardId}/files/{id}) needs the
 * session's token, which a plain link cannot send: fetched here, then saved from memory through a blob URL.
 */
export async function downloadBoardFile(
  boardId: string,
  file: Pick<BoardFile, 'documentId' | 'name'>,
): Promise<void> {
  const blob = (await unwrap(
    client.GET('/api/boards/{boardId}/files/{id}', {
      params: { path: { boardId, id: file.documentId } },
      parseAs: 'blob',
    }),
  )) as unknown as Blob;
  saveBlob(blob, file.name);
}
