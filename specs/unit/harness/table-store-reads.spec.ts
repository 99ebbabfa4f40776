/**
 * The key table store's reads (src/harness/seams/dedup-store.ts): `readDatabase` copies the bytes
 * of the store's last read of the table while nothing can have changed the database since (no
 * command that changes the device, no request of the app), and reads the device again otherwise.
 * A hand-built device answers `run-as PKG cat` from a real SQLite file; the steps are the few
 * parts of DeviceSteps the store uses.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { runReads, type ShellRead } from '../../../src/android/shell-reads.js';
import type { DeviceSteps } from '../../../src/harness/device-steps.js';
import type { HistoryEvent } from '../../../src/history/events.js';
import { KeyTableStore } from '../../../src/harness/seams/dedup-store.js';
import { FakeDevice } from '../android/fake-device.js';

const PKG = 'com.example.feednotifier';
const A = 'https://feed.example.com/items/1';
const B = 'https://feed.example.com/items/2';

describe('key table store: the read of the table serves readDatabase while it holds', () => {
  let dir: string;
  let files: Map<string, Buffer>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dv-table-store-spec-'));
    const path = join(dir, 'feed.db');
    const db = new Database(path);
    db.exec('CREATE TABLE notifications (id INTEGER PRIMARY KEY, link TEXT)');
    db.prepare('INSERT INTO notifications (link) VALUES (?), (?)').run(A, B);
    db.close();
    files = new Map([['databases/feed.db', readFileSync(path)]]);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function setUp() {
    const device = new FakeDevice((argv) => {
      if (argv[0] === 'run-as' && argv[1] === PKG && argv[2] === 'cat') {
        const data = files.get(argv[3] ?? '');
        return data === undefined ? { exitCode: 1, stderr: `cat: ${argv[3]}: No such file or directory\n` } : { stdout: data };
      }
      return { exitCode: 127, stderr: `unexpected: ${argv.join(' ')}` };
    });
    const state = { changes: 0, journal: [] as unknown[] };
    const events: HistoryEvent[] = [];
    const steps = {
      device,
      pkg: PKG,
      ctx: { backupDir: join(dir, 'backups'), server: { journal: () => state.journal } },
      changesSent: () => state.changes,
      mark: () => ({ changes: state.changes, journal: state.journal.length }),
      stillHolds: (read: { changes: number; journal: number }) => read.changes === state.changes && read.journal === state.journal.length,
      read: <const R extends readonly ShellRead<unknown>[]>(reads: R) => runReads(device, reads),
      record: (event: HistoryEvent) => events.push(event),
      deviceTimeEstimate: () => 0,
    } as unknown as DeviceSteps;
    const store = new KeyTableStore(steps, { kind: 'key', file: 'databases/feed.db', table: 'notifications', keyColumn: 'link' }, { match: 'hashcode-id' });
    const cats = (): number => device.calls.filter((c) => c.argv[2] === 'cat' && c.argv[3] === 'databases/feed.db').length;
    return { store, state, events, cats };
  }

  it('copies the bytes of the last read while nothing changed, with the rows event', async () => {
    const { store, events, cats } = setUp();
    expect(await store.newStored()).to.deep.equal([A, B]);
    expect(cats()).to.equal(1);
    const db = await store.readDatabase();
    expect(cats(), 'no read of its own').to.equal(1);
    expect(db.keys).to.deep.equal([A, B]);
    expect(readFileSync(db.copyPath).equals(files.get('databases/feed.db') ?? Buffer.alloc(0))).to.equal(true);
    expect(events.map((e) => e.type)).to.deep.equal(['rows']);
  });

  it('reads the device again after a command that changed it, or a request of the app', async () => {
    const { store, state, cats } = setUp();
    await store.newStored();
    state.changes++;
    await store.readDatabase();
    expect(cats()).to.equal(2);
    await store.newStored();
    state.journal.push({ path: '/feed.xml' });
    await store.readDatabase();
    expect(cats()).to.equal(4);
  });

  it('reads the device when the last read found no database', async () => {
    const saved = files.get('databases/feed.db');
    files.delete('databases/feed.db');
    const { store, cats } = setUp();
    expect(await store.newStored()).to.deep.equal([]);
    files.set('databases/feed.db', saved ?? Buffer.alloc(0));
    expect((await store.readDatabase()).keys).to.deep.equal([A, B]);
    expect(cats()).to.equal(2);
  });
});
