/**
 * Hands a file to the browser to save under a name. The API's files (a message's media, a board's files, PDFs) need
 * the session's token, which a plain link cannot send: they are fetched, then saved from memory through a blob URL.
 */
export function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
