/**
 * The files WhatsApp takes as a message, by kind, with its size limits: the service's list
 * (src/modules/inbox/send.ts, MEDIA; test/web/inbox-attachments.test.ts checks both agree), so the composer refuses
 * a file before reading or sending it. Each type with the extensions a browser may leave untyped.
 */
const MB = 1024 * 1024;
export type MediaKind = 'image' | 'audio' | 'video' | 'document';
export const MAX_ATTACHMENT_BYTES = 50 * MB;
export const MEDIA_LIMITS: Record<MediaKind, number> = {
  image: 5 * MB,
  audio: 16 * MB,
  video: 16 * MB,
  document: MAX_ATTACHMENT_BYTES,
};
export const MEDIA_TYPES: Record<string, { kind: MediaKind; ext: string[] }> = {
  'image/jpeg': { kind: 'image', ext: ['jpg', 'jpeg'] },
  'image/png': { kind: 'image', ext: ['png'] },
  'audio/aac': { kind: 'audio', ext: ['aac'] },
  'audio/amr': { kind: 'audio', ext: ['amr'] },
  'audio/mpeg': { kind: 'audio', ext: ['mp3'] },
  'audio/mp4': { kind: 'audio', ext: ['m4a'] },
  'audio/ogg': { kind: 'audio', ext: ['ogg', 'opus'] },
  'video/mp4': { kind: 'video', ext: ['mp4'] },
  'video/3gpp': { kind: 'video', ext: ['3gp'] },
  'application/pdf': { kind: 'document', ext: ['pdf'] },
  'text/plain': { kind: 'document', ext: ['txt'] },
  'application/msword': { kind: 'document', ext: ['doc'] },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
    kind: 'document',
    ext: ['docx'],
  },
  'application/vnd.ms-excel': { kind: 'document', ext: ['xls'] },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { kind: 'document', ext: ['xlsx'] },
  'application/vnd.ms-powerpoint': { kind: 'document', ext: ['ppt'] },
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': {
    kind: 'document',
    ext: ['pptx'],
  },
};

/** The picker's `accept`: every type and its extensions. */
export const ACCEPT = Object.entries(MEDIA_TYPES)
  .flatMap(([type, m]) => [type, ...m.ext.map((e) => `.${e}`)])
  .join(',');

/** The extension of a file name, lower case ('' when none). */
const extension = (name: string) => (/\.([^.]+)$/.exec(name)?.[1] ?? '').toLowerCase();

/** What a picked file is to WhatsApp: its type (the browser's, else by its extension), or why it cannot be sent. */
export type FileCheck =
  | { ok: true; mimeType: string; kind: MediaKind }
  | { ok: false; why: 'type'; type: string }
  | { ok: false; why: 'size'; kind: MediaKind; max: number }
  | { ok: false; why: 'empty' };

export function checkFile(file: { name: string; type: string; size: number }): FileCheck {
  const given = file.type.toLowerCase().split(';')[0].trim();
  const ext = extension(file.name);
  // A type the browser does not know, or names otherwise (audio/x-m4a), is read from the extension.
  const mimeType = MEDIA_TYPES[given]
    ? given
    : Object.keys(MEDIA_TYPES).find((t) => MEDIA_TYPES[t].ext.includes(ext));
  if (!mimeType) return { ok: false, why: 'type', type: given || (ext ? `.${ext}` : '') };
  const { kind } = MEDIA_TYPES[mimeType];
  if (file.size === 0) return { ok: false, why: 'empty' };
  if (file.size > MEDIA_LIMITS[kind]) return { ok: false, why: 'size', kind, max: MEDIA_LIMITS[kind] };
  return { ok: true, mimeType, kind };
}

/** The extension a downloaded file of this type gets when the message names no file ('' when unknown). */
export const extensionOf = (mimeType: string | null | undefined) =>
  MEDIA_TYPES[(mimeType ?? '').split(';')[0].trim()]?.ext[0] ?? '';

/**
 * The pictures a message shows in the thread (components/inbox/MessagePicture.tsx): WhatsApp's image types and its
 * stickers' WebP, up to WhatsApp's own limit for images. Anything else, or larger, is named and downloaded only.
 */
export const PICTURE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
export const MAX_PICTURE_BYTES = MEDIA_LIMITS.image;
