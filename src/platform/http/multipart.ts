import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

/**
 * busboy reports a malformed or truncated multipart body ("Unexpected end of multipart data") as a plain
 * Error with no status: the client's fault, so a 400. Errors that already carry a status (the plugin's
 * limits, our own AppErrors) keep it.
 */
export function asMultipartError(err: unknown): unknown {
  if (err instanceof AppError || typeof (err as { statusCode?: unknown })?.statusCode === 'number')
    return err;
  return new AppError('BadRequestError', 'Malformed multipart body');
}

/** The first file part of a multipart request; its stream's own errors become 400s as well. */
export async function firstFilePart(req: FastifyRequest) {
  let part: Awaited<ReturnType<FastifyRequest['file']>>;
  try {
    part = await req.file();
  } catch (err) {
    throw asMultipartError(err);
  }
  return part;
}
