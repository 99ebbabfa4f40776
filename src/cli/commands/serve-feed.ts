/**
 * `dedup-verify serve-feed [--port N] [--fixture NAME | --file FEED.xml]` (docs/design.md §9): the
 * fixture server on 127.0.0.1 for replaying a scenario by hand. Serves a built-in fixture
 * (fixtures/feeds/, dates relative to the start) or a file (re-read on every request, so it can
 * be edited between runs) as /feed.xml, plus the receipts backend; logs one line per request;
 * runs until SIGINT or SIGTERM.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DedupVerifyError, ErrorCode, UsageError, isDedupVerifyError } from '../../errors.js';
import { loadFeedFixture } from '../../feed/feed-fixture.js';
import { startFixtureServer } from '../../feed/fixture-server.js';
import type { FeedSource, FixtureServer, JournalEntry } from '../../feed/fixture-server.js';
import { parseFeed } from '../../feed/parse-feed.js';
import type { CliIo } from '../io.js';
import { untilStopped } from '../until-stopped.js';

export const DEFAULT_FIXTURE = 'fresh-five';

export interface ServeFeedOptions {
  port: number;
  fixture?: string;
  file?: string;
  /** Append every request to this JSON Lines file (evidence for a repro). */
  journal?: string;
}

export interface ServeFeedControl {
  /** Stops the server like SIGINT/SIGTERM do (tests, embedding). */
  readonly signal?: AbortSignal;
  /** Where built-in fixtures live (default: the package's fixtures/feeds). */
  readonly fixturesDir?: string;
}

function readOptions(opts: Readonly<Record<string, unknown>>): ServeFeedOptions {
  const { port, fixture, file, journal } = opts;
  const p = port ?? 8765;
  if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p > 65535) {
    throw new UsageError(`--port takes a TCP port from 0 to 65535 (got ${JSON.stringify(p)}).`);
  }
  if (fixture !== undefined && typeof fixture !== 'string') throw new UsageError('--fixture takes a fixture name.');
  if (file !== undefined && typeof file !== 'string') throw new UsageError('--file takes a path to an RSS or Atom file.');
  if (fixture !== undefined && file !== undefined) throw new UsageError('Give either --fixture NAME or --file FEED.xml, not both.');
  if (journal !== undefined && typeof journal !== 'string') throw new UsageError('--journal takes a file path.');
  return { port: p, ...(fixture !== undefined ? { fixture } : {}), ...(file !== undefined ? { file } : {}), ...(journal !== undefined ? { journal: resolve(journal) } : {}) };
}

async function feedSource(options: ServeFeedOptions, io: CliIo, fixturesDir: string | undefined): Promise<FeedSource> {
  if (options.file !== undefined) {
    const path = resolve(options.file);
    let xml: string;
    try {
      xml = await readFile(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      throw new UsageError(`Cannot read feed file ${path} (${code}). Check the path given to --file.`, { cause: e });
    }
    const parsed = parseFeed(xml);
    if (parsed.format === 'unknown' || parsed.items.length === 0) {
      io.stderr(`warning: ${path} holds no RSS <item> or Atom <entry>; serving it as is.\n`);
    }
    return { file: path };
  }
  const name = options.fixture ?? DEFAULT_FIXTURE;
  let loaded: Awaited<ReturnType<typeof loadFeedFixture>>;
  try {
    loaded = await loadFeedFixture(name, fixturesDir);
  } catch (e) {
    if (isDedupVerifyError(e)) throw new UsageError(e.message, { cause: e });
    throw e;
  }
  return loaded.kind === 'items' ? { format: loaded.fixture.format, items: loaded.fixture.items } : { xml: loaded.xml };
}

function describeRequest(e: JournalEntry): string {
  const items = e.itemsServed === undefined ? '' : ` ${e.itemsServed.length} items`;
  const status = e.status === 0 ? (e.clientClosed ? 'client-closed' : 'no-response') : String(e.status);
  return `${e.method} ${e.path} ${status}${items}\n`;
}

export async function runServeFeed(opts: Readonly<Record<string, unknown>>, io: CliIo, control: ServeFeedControl = {}): Promise<number> {
  const options = readOptions(opts);
  const feed = await feedSource(options, io, control.fixturesDir);
  let server: FixtureServer;
  try {
    server = await startFixtureServer({ port: options.port, feed, ...(options.journal !== undefined ? { journalPath: options.journal } : {}) });
  } catch (e) {
    const inUse = (e as { cause?: NodeJS.ErrnoException }).cause?.code === 'EADDRINUSE';
    throw new DedupVerifyError(
      ErrorCode.FixtureServer,
      inUse
        ? `Port ${options.port} on 127.0.0.1 is in use. Stop the program listening there (another serve-feed?) or pass --port N with a free port.`
        : `Cannot start the feed server on 127.0.0.1:${options.port}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
  const stopped = untilStopped(control.signal);
  server.onRequest((entry) => io.stdout(describeRequest(entry)));
  io.stdout(`serving feed on ${server.url}${server.feedPath}\n`);
  await stopped;
  await server.close();
  return 0;
}
