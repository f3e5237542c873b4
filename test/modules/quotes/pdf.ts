import { PDFParse } from 'pdf-parse';
import type { Tenant } from '../../helpers/app.js';

export interface PdfResponse {
  status: number;
  contentType: string;
  buffer: Buffer;
  /** The error envelope when the answer is not a PDF. */
  json?: any;
}

/** Calls a route that answers a PDF, keeping the raw bytes (the JSON test client decodes text). */
export async function fetchPdf(
  tenant: Tenant,
  method: 'GET' | 'POST',
  path: string,
  payload?: unknown,
): Promise<PdfResponse> {
  const res = await tenant.app.inject({
    method,
    url: `/api${path}`,
    headers: { authorization: `Bearer ${tenant.user.jwt}`, 'x-tenant-id': tenant.slug },
    payload: payload as any,
  });
  const contentType = String(res.headers['content-type'] ?? '');
  return {
    status: res.statusCode,
    contentType,
    buffer: res.rawPayload,
    json: contentType.includes('json') ? res.json() : undefined,
  };
}

/** The text of every page, whitespace collapsed, for `toContain` checks. */
export async function pdfText(buffer: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(buffer) });
  try {
    const { text } = await parser.getText();
    return text.replace(/\s+/g, ' ');
  } finally {
    await parser.destroy();
  }
}
