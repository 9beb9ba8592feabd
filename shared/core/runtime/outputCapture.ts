import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';

export interface CaptureLimits {
  /** Bytes of the stream's start kept in memory. */
  memoryBytes: number;
  /** Bytes written to the overflow file; the rest is counted and dropped. */
  fileBytes: number;
}

export const DEFAULT_CAPTURE_LIMITS: CaptureLimits = {
  memoryBytes: 2 * 1024 * 1024,
  fileBytes: 256 * 1024 * 1024,
};

/**
 * One output stream of a command. Its first `memoryBytes` stay in memory; once it grows past
 * that, the whole stream (from byte 0) goes to `filePath`, up to `fileBytes`, past which it is only
 * counted. So a huge or endless output costs neither unbounded memory nor unbounded disk. Writes to
 * the file apply backpressure to the source, which stalls the command's pipe rather than queueing
 * in memory.
 */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private total = 0;
  private written = 0;
  private file: WriteStream | undefined;
  private failure: Error | undefined;
  private waitingForDrain = false;
  /** Resolves when the source is closed: all its writers are gone, or it was abandoned. */
  readonly closed: Promise<void>;

  constructor(
    private readonly source: Readable,
    readonly filePath: string,
    private readonly limits: CaptureLimits = DEFAULT_CAPTURE_LIMITS,
  ) {
    this.closed = new Promise((resolve) => source.once('close', () => resolve()));
    source.on('error', (error: Error) => {
      this.failure ??= error;
    });
    source.on('data', (chunk: Buffer) => this.take(chunk));
  }

  /** Bytes the stream produced in all. */
  get bytes(): number {
    return this.total;
  }

  /** Bytes of the stream's start held in memory. */
  get keptBytes(): number {
    return this.headBytes;
  }

  /** Whether the in-memory text is only the start of the stream. */
  get cut(): boolean {
    return this.total > this.headBytes;
  }

  /** The overflow file, when the stream outgrew memory. */
  get overflowFile(): string | undefined {
    return this.file ? this.filePath : undefined;
  }

  /** Bytes neither kept in memory nor written to the file. */
  get droppedBytes(): number {
    return this.file ? this.total - this.written : 0;
  }

  /** The start of the stream as text (a multi-byte character cut at the end shows as U+FFFD). */
  text(): string {
    return Buffer.concat(this.head).toString('utf8');
  }

  /** Stops waiting for writers that will not go away (a process outside the command's group). */
  abandon(): void {
    this.source.destroy();
  }

  /** Waits for the source to close and the file to be flushed; throws if reading or writing failed. */
  async finish(): Promise<void> {
    await this.closed;
    if (this.file) {
      this.file.end();
      await finished(this.file).catch((error: Error) => {
        this.failure ??= error;
      });
    }
    if (this.failure) throw new Error(`capturing output to ${this.filePath} failed: ${this.failure.message}`);
  }

  private take(chunk: Buffer): void {
    const before = this.total;
    this.total += chunk.length;
    if (this.total <= this.limits.memoryBytes) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
      return;
    }
    if (!this.file && !this.failure) this.openFile();
    if (before < this.limits.memoryBytes) {
      const kept = chunk.subarray(0, this.limits.memoryBytes - before);
      this.head.push(kept);
      this.headBytes += kept.length;
    }
    this.toFile(chunk);
  }

  private openFile(): void {
    try {
      mkdirSync(path.dirname(this.filePath), { recursive: true });
      this.file = createWriteStream(this.filePath, { flags: 'wx' });
    } catch (error) {
      this.failure = error as Error;
      return;
    }
    this.file.on('error', (error) => {
      this.failure ??= error;
      // Keep reading so the command is not stalled on a full pipe; finish() reports the failure.
      this.waitingForDrain = false;
      this.source.resume();
    });
    this.toFile(Buffer.concat(this.head));
  }

  private toFile(chunk: Buffer): void {
    if (!this.file || this.failure) return;
    const room = this.limits.fileBytes - this.written;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.written += part.length;
    if (!this.file.write(part) && !this.waitingForDrain) {
      this.waitingForDrain = true;
      this.source.pause();
      this.file.once('drain', () => {
        this.waitingForDrain = false;
        this.source.resume();
      });
    }
  }
}
