import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** A batch of reports waiting to be sent, as it lies on disk. */
export interface SpooledBatch {
  readonly file: string;
  readonly reports: readonly unknown[];
  readonly bytes: number;
}

/** What the spool tells its owner: a warning as it nears its bound, and each batch it dropped to stay within it. */
export interface SpoolEvents {
  readonly onNearlyFull?: (bytes: number, limit: number) => void;
  readonly onDropped?: (file: string, bytes: number) => void;
}

/**
 * A directory of report batches not yet acknowledged by the server, one
 * file each, named so they sort in the order they were made. A batch is
 * written to a temporary file, flushed and renamed, and the directory
 * flushed, so a batch the spool accepted survives SIGKILL or a power cut;
 * it is deleted only once the server answered it. At most `maxBytes` are
 * kept: past 80% it warns, past 100% it drops the oldest batches.
 */
export class ReportSpool {
  private sequence = 0;
  /** The batches on disk and their sizes, oldest first (file names sort in order). */
  private readonly sizes = new Map<string, number>();

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly events: SpoolEvents,
  ) {}

  /** Opens (and creates) the spool directory; batches left by an earlier process are kept and sent first. */
  static async open(dir: string, maxBytes: number, events: SpoolEvents = {}): Promise<ReportSpool> {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const spool = new ReportSpool(dir, maxBytes, events);
    for (const name of (await fs.readdir(dir)).sort()) {
      const file = path.join(dir, name);
      // a batch still .tmp was never accepted: its append had not returned
      if (name.endsWith('.tmp')) await fs.rm(file, { force: true });
      else if (name.endsWith('.json')) spool.sizes.set(file, (await fs.stat(file)).size);
    }
    return spool;
  }

  /** Writes a batch durably; resolves once it is on disk. */
  async append(reports: readonly unknown[]): Promise<void> {
    this.sequence += 1;
    // time first, so batches of this process and of earlier ones sort in the order they were made
    const name = `${Date.now().toString().padStart(15, '0')}-${String(this.sequence).padStart(9, '0')}-${randomUUID().slice(0, 8)}.json`;
    const temporary = path.join(this.dir, `${name}.tmp`);
    const text = JSON.stringify(reports);
    const handle = await fs.open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    const file = path.join(this.dir, name);
    await fs.rename(temporary, file);
    await this.syncDirectory();
    this.sizes.set(file, Buffer.byteLength(text));
    await this.enforceBound();
  }

  /** The batches waiting, oldest first. */
  async pending(): Promise<SpooledBatch[]> {
    const batches: SpooledBatch[] = [];
    for (const file of [...this.sizes.keys()]) {
      const text = await fs.readFile(file, 'utf8').catch(() => null);
      if (text === null) continue;
      try {
        batches.push({ file, reports: JSON.parse(text) as unknown[], bytes: Buffer.byteLength(text) });
      } catch {
        // only a complete file is ever renamed into place; anything else is not ours to send
        await fs.rename(file, `${file}.unreadable`);
        this.sizes.delete(file);
      }
    }
    return batches;
  }

  /** Forgets a batch the server answered. */
  async remove(batch: Pick<SpooledBatch, 'file'>): Promise<void> {
    await fs.rm(batch.file, { force: true });
    this.sizes.delete(batch.file);
  }

  /** Keeps a batch the server will never take beside the spool (`.rejected`), out of the sending order. */
  async setAside(batch: Pick<SpooledBatch, 'file'>): Promise<void> {
    await fs.rename(batch.file, `${batch.file}.rejected`);
    this.sizes.delete(batch.file);
  }

  /** The bytes the waiting batches take on disk. */
  get bytes(): number {
    let total = 0;
    for (const size of this.sizes.values()) total += size;
    return total;
  }

  private async enforceBound(): Promise<void> {
    let bytes = this.bytes;
    if (bytes > this.maxBytes * 0.8) this.events.onNearlyFull?.(bytes, this.maxBytes);
    for (const [file, size] of [...this.sizes]) {
      if (bytes <= this.maxBytes) break;
      await this.remove({ file });
      bytes -= size;
      this.events.onDropped?.(file, size);
    }
  }

  private async syncDirectory(): Promise<void> {
    const handle = await fs.open(this.dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
