/**
 * The fixture server's journal: one entry per completed request, in memory and, when asked,
 * appended to a JSON Lines file as it happens (evidence), with listeners told of each entry.
 */
import { constants as fsConstants, createWriteStream, openSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { DedupVerifyError, ErrorCode } from '../errors.js';

/** Bodies are journaled up to this many bytes (as text). */
export const JOURNAL_BODY_LIMIT = 64 * 1024;

export interface JournalEntry {
  /** Arrival order, from 1. */
  readonly seq: number;
  /** Server clock at arrival (epoch ms). */
  readonly t: number;
  readonly method: string;
  /** The request target as received (path and query). */
  readonly path: string;
  /** Header names lower-cased; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** Body as UTF-8 text, truncated to JOURNAL_BODY_LIMIT bytes. */
  readonly body: string;
  readonly bodyTruncated?: true;
  /** The status sent; 0 when no response was sent (dropped, or closed while held). */
  readonly status: number;
  /** Item keys (link, "" when missing) in the feed body that was sent. */
  readonly itemsServed?: readonly string[];
  /** The fault applied: `status:503`, `delay:200`, `hold`, `drop-after-processing`. */
  readonly fault?: string;
  readonly held?: true;
  readonly dropped?: true;
  /** The client went away before the response was complete. */
  readonly clientClosed?: true;
  /** Receipts: the idempotency key sent, `null` when the header was missing or empty. */
  readonly idempotencyKey?: string | null;
  readonly idempotencyKeyMissing?: true;
  /** Receipts: the receipt number answered (new or replayed). */
  readonly receipt?: number;
  readonly replayed?: boolean;
  readonly durationMs: number;
}

export type RequestListener = (entry: JournalEntry) => void;

/** The request's headers as journaled: names lower-cased, repeated headers joined with ", ". */
export function journalHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    const value = req.rawHeaders[i + 1] ?? '';
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

/** The body as journaled: UTF-8 text of at most JOURNAL_BODY_LIMIT bytes. */
export function journalBody(buf: Buffer): { text: string; truncated: boolean } {
  if (buf.length <= JOURNAL_BODY_LIMIT) return { text: buf.toString('utf8'), truncated: false };
  return { text: buf.subarray(0, JOURNAL_BODY_LIMIT).toString('utf8'), truncated: true };
}

/** Makes sure the journal file can be written (created when missing); throws DV_FIXTURE_SERVER naming the path. */
export async function checkJournalFile(path: string): Promise<void> {
  try {
    await appendFile(path, '');
  } catch (e) {
    throw new DedupVerifyError(ErrorCode.FixtureServer, `Cannot write the fixture-server journal to ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}. Check that its directory exists and is writable.`, { cause: e });
  }
}

export class Journal {
  private readonly entries: JournalEntry[] = [];
  private readonly listeners = new Set<RequestListener>();
  private readonly stream: WriteStream | undefined;

  /** `path`: also append every entry to this file as JSON Lines. */
  constructor(path?: string) {
    if (path !== undefined) {
      // O_NOFOLLOW: evidence is never appended through a symbolic link planted at its name.
      const { O_WRONLY, O_CREAT, O_APPEND, O_NOFOLLOW } = fsConstants;
      let fd: number | undefined;
      try {
        fd = openSync(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o644);
      } catch {
        // Evidence is best effort; the in-memory journal stays complete (entries(), write()).
      }
      this.stream = fd === undefined ? undefined : createWriteStream(path, { fd });
      this.stream?.on('error', () => {
        // As above: best effort.
      });
    }
  }

  /** How many entries are recorded. */
  get size(): number {
    return this.entries.length;
  }

  /** Every entry, in arrival order. */
  all(): JournalEntry[] {
    return [...this.entries].sort((a, b) => a.seq - b.seq);
  }

  /** One line per entry in recording order ("GET /feed.xml 200, ..."), "empty" when none. */
  summary(): string {
    return this.entries.map((e) => `${e.method} ${e.path} ${e.status}`).join(', ') || 'empty';
  }

  /** Called with each entry as it is recorded. Returns the unsubscribe function. */
  onRequest(listener: RequestListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(entry: JournalEntry): void {
    this.entries.push(entry);
    this.stream?.write(`${JSON.stringify(entry)}\n`);
    for (const l of [...this.listeners]) {
      try {
        l(entry);
      } catch {
        // A listener's own failure must not break the server or the other listeners.
      }
    }
  }

  /** Writes every entry as JSON Lines to `path`. */
  async write(path: string): Promise<void> {
    await writeFile(path, this.all().map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  /** Ends the file stream, once what was written is flushed. */
  close(): Promise<void> {
    const stream = this.stream;
    if (stream === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => stream.end(resolve));
  }
}
