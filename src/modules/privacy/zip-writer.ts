import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';

/**
 * A zip written to disk as it is made (fflate's streaming Zip): one entry at a time, each pushed in chunks, and
 * the file stream's back-pressure awaited after each chunk, so memory holds a chunk, not the archive.
 */
export class ZipFileWriter {
  private readonly out;
  private readonly zip: Zip;
  private failed: Error | null = null;
  private readonly done: Promise<void>;

  constructor(path: string) {
    this.out = createWriteStream(path, { mode: 0o600 });
    this.out.on('error', (err) => {
      this.failed = err;
    });
    let finish: () => void = () => {};
    this.done = new Promise((resolve) => {
      finish = resolve;
    });
    this.zip = new Zip((err, chunk, final) => {
      if (err) this.failed = err;
      else this.out.write(chunk);
      if (final || err) finish();
    });
  }

  private async drain() {
    if (this.failed) throw this.failed;
    if (this.out.writableNeedDrain) await once(this.out, 'drain');
  }

  /** A new entry: push its chunks with `write`, then `end`. */
  entry(name: string, compress = true) {
    const file: ZipDeflate | ZipPassThrough = compress
      ? new ZipDeflate(name, { level: 6 })
      : new ZipPassThrough(name);
    this.zip.add(file);
    const encoder = new TextEncoder();
    return {
      write: async (text: string) => {
        file.push(encoder.encode(text));
        await this.drain();
      },
      end: async () => {
        file.push(new Uint8Array(0), true);
        await this.drain();
      },
    };
  }

  /** A file on disk copied in as an entry, stored as it is (uploads are mostly compressed already). */
  async copyFile(name: string, path: string) {
    const file = new ZipPassThrough(name);
    this.zip.add(file);
    for await (const chunk of createReadStream(path)) {
      file.push(chunk as Uint8Array);
      await this.drain();
    }
    file.push(new Uint8Array(0), true);
    await this.drain();
  }

  /** Ends the archive and closes the file; answers its size. */
  async close(): Promise<number> {
    this.zip.end();
    await this.done;
    if (this.failed) throw this.failed;
    this.out.end();
    await once(this.out, 'finish');
    return this.out.bytesWritten;
  }

  /** Gives up: the stream closed (the caller removes the file). */
  abort() {
    this.zip.terminate();
    this.out.destroy();
  }
}
