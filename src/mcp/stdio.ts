import { PassThrough } from 'node:stream';
import type { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type McpServerFactory, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';

/**
 * stdio in both eras: the client's first message decides for the connection, as the SDKs do. A 2026-07-28
 * client opens with `server/discover` or a request carrying the `_meta` envelope (its protocol version); any
 * other opening (`initialize`) is a 2025-era client, served by the session server of the earlier revisions.
 */
export function isModernOpening(line: string): boolean {
  try {
    const message = JSON.parse(line) as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
    if (message.method === 'initialize') return false;
    return (
      message.method === 'server/discover' || message.params?._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined
    );
  } catch {
    return false;
  }
}

/** Reads stdin up to its first line, then hands the whole stream (that line included) on. */
function firstLine(stdin: NodeJS.ReadableStream): Promise<{ line: string; input: PassThrough }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const input = new PassThrough();
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\n');
      if (end < 0) return;
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.pause();
      input.write(Buffer.concat(chunks));
      stdin.pipe(input);
      resolve({ line: text.slice(0, end), input });
    };
    const onEnd = () => {
      input.end();
      resolve({ line: '', input });
    };
    stdin.on('data', onData);
    stdin.once('end', onEnd);
  });
}

export async function serveBothEras(legacy: () => LegacyServer, modern: McpServerFactory) {
  const { line, input } = await firstLine(process.stdin);
  if (isModernOpening(line)) {
    serveStdio(modern, {
      legacy: 'reject',
      transport: new StdioServerTransport(input, process.stdout),
      onerror: (err) => process.stderr.write(`crm-mcp: ${err.message}\n`),
    });
    input.once('close', () => process.exit(0));
    return;
  }
  const server = legacy();
  server.onclose = () => process.exit(0);
  await server.connect(new LegacyStdioTransport(input, process.stdout));
}
