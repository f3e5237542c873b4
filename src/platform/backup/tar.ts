import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';

/**
 * The few bytes of the POSIX ustar format a backup needs (regular files and directories, names of at most 255
 * bytes): a writer that streams entries into any Writable (a gzip stream) with back-pressure, and a reader that
 * walks the entries of a stream without holding them in memory. `tar -tzvf` lists what the writer writes.
 */

const BLOCK = 512;
const MAX_SIZE = 8 ** 11 - 1; // 11 octal digits

function header(name: string, size: number, type: '0' | '5', mtime: Date, mode: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  const bytes = Buffer.from(name, 'utf8');
  let prefix = Buffer.alloc(0);
  let base = bytes;
  if (bytes.length > 100) {
    // Split at a slash: prefix (≤155 bytes) / name (≤100 bytes).
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100)
      throw new Error(`tar: name too long: ${name}`);
    prefix = Buffer.from(name.slice(0, cut));
    base = Buffer.from(name.slice(cut + 1));
  }
  if (size > MAX_SIZE) throw new Error(`tar: ${name} is larger than 8 GiB`);
  base.copy(h, 0);
  h.write(`${(mode & 0o7777).toString(8).padStart(7, '0')}\0`, 100, 'ascii');
  h.write('0000000\0', 108, 'ascii');
  h.write('0000000\0', 116, 'ascii');
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  h.write(
    `${Math.floor(mtime.getTime() / 1000)
      .toString(8)
      .padStart(11, '0')}\0`,
    136,
    'ascii',
  );
  h.write('        ', 148, 'ascii');
  h.write(type, 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  prefix.copy(h, 345);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

export interface WrittenFile {
  path: string;
  size: number;
  sha256: string;
}

export class TarWriter {
  constructor(private readonly out: Writable) {}

  /**
   * Small writes gathered into 1 MiB ones: each write that waits for the stream yields to the event loop, and a
   * serving process under load (the backup runs beside the requests) then takes a long time per yield.
   */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  private async write(chunk: Buffer) {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= 1 << 20) await this.flush();
  }

  private async flush() {
    if (!this.pendingBytes) return;
    const chunk = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  /** A file from memory. */
  async addBuffer(path: string, data: Uint8Array, mtime = new Date()): Promise<WrittenFile> {
    const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    await this.write(header(path, buf.length, '0', mtime, 0o600));
    await this.write(buf);
    await this.pad(buf.length);
    return { path, size: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
  }

  async addDirectory(path: string, mtime = new Date()): Promise<void> {
    await this.write(header(path.endsWith('/') ? path : `${path}/`, 0, '5', mtime, 0o700));
  }

  /**
   * A file from disk, streamed. `size` is the size the header announces (stat before): a file that grew or
   * shrank meanwhile is an error rather than a corrupt archive.
   */
  async addFile(path: string, source: string, size: number, mtime: Date): Promise<WrittenFile> {
    await this.write(header(path, size, '0', mtime, 0o600));
    const hash = createHash('sha256');
    let written = 0;
    for await (const chunk of createReadStream(source)) {
      const c = chunk as Buffer;
      written += c.length;
      if (written > size) throw new Error(`${source} changed while it was being archived`);
      hash.update(c);
      await this.write(c);
    }
    if (written !== size) throw new Error(`${source} changed while it was being archived`);
    await this.pad(size);
    return { path, size, sha256: hash.digest('hex') };
  }

  private async pad(size: number) {
    const rest = size % BLOCK;
    if (rest) await this.write(Buffer.alloc(BLOCK - rest));
  }

  /** The two zero blocks that end an archive; ends the stream. */
  async finish() {
    await this.write(Buffer.alloc(BLOCK * 2));
    await this.flush();
    this.out.end();
  }
}

/** Reads exact byte counts from an async iterable of chunks. */
class ByteReader {
  private buf: Buffer = Buffer.alloc(0);
  private done = false;
  constructor(private readonly it: AsyncIterator<Buffer>) {}

  private async fill(n: number) {
    while (this.buf.length < n && !this.done) {
      const next = await this.it.next();
      if (next.done) this.done = true;
      else this.buf = this.buf.length ? Buffer.concat([this.buf, next.value]) : next.value;
    }
  }

  /** Exactly n bytes, or null at a clean end (no byte left). */
  async read(n: number): Promise<Buffer | null> {
    await this.fill(n);
    if (this.buf.length === 0 && this.done) return null;
    if (this.buf.length < n) throw new Error('the archive is truncated');
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** n bytes in pieces, as they come. */
  async *pieces(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      await this.fill(1);
      if (this.buf.length === 0) throw new Error('the archive is truncated');
      const take = Math.min(left, this.buf.length);
      yield this.buf.subarray(0, take);
      this.buf = this.buf.subarray(take);
      left -= take;
    }
  }
}

export interface TarEntry {
  path: string;
  type: 'file' | 'directory';
  size: number;
  /** The entry's bytes: consume it (or not) before asking for the next entry. */
  body: AsyncGenerator<Buffer>;
}

function field(h: Buffer, start: number, len: number): string {
  const raw = h.subarray(start, start + len);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? len : end).toString('utf8');
}

function octal(h: Buffer, start: number, len: number): number {
  const text = field(h, start, len).trim();
  if (!/^[0-7]*$/.test(text)) throw new Error('the archive has a corrupt header');
  return text ? Number.parseInt(text, 8) : 0;
}

/** The entries of a tar stream (regular files and directories; anything else is refused). */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const reader = new ByteReader(source[Symbol.asyncIterator]());
  for (;;) {
    const h = await reader.read(BLOCK);
    if (h === null) throw new Error('the archive is truncated (no end-of-archive blocks)');
    if (h.every((b) => b === 0)) return;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== octal(h, 148, 8)) throw new Error('the archive has a corrupt header (checksum)');
    const prefix = field(h, 345, 155);
    const name = field(h, 0, 100);
    const path = prefix ? `${prefix}/${name}` : name;
    const flag = String.fromCharCode(h[156]!);
    const size = octal(h, 124, 12);
    const type = flag === '0' || flag === '\0' ? 'file' : flag === '5' ? 'directory' : undefined;
    if (!type) throw new Error(`the archive holds ${path}, neither a file nor a directory (type ${flag})`);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    let consumed = false;
    const body = (async function* () {
      consumed = true;
      yield* reader.pieces(size);
    })();
    yield { path, type, size: type === 'file' ? size : 0, body };
    if (!consumed) for await (const _ of reader.pieces(size));
    else await drainRest(body);
    if (padded > size) await reader.read(padded - size);
  }
}

async function drainRest(body: AsyncGenerator<Buffer>) {
  for await (const _ of body);
}
