/**
 * The workdb and its -wal as one snapshot (databaseRead in src/android/app-data.ts). Real SQLite
 * files in WAL mode stand for the app's database: an app connection commits and checkpoints
 * between the reads. Copied by two separate reads, main and -wal can come from either side of a
 * checkpoint and the host copy loses committed rows; databaseRead's one invocation reads the -wal
 * on both sides of the main file and asks for the invocation again when it changed.
 */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ShellResult } from '../../../src/device/android-device.js';
import { databaseRead } from '../../../src/android/app-data.js';
import { ReadAgain } from '../../../src/android/shell-reads.js';

const PKG = 'com.example.feednotifier';

describe('workdb and -wal: one snapshot', () => {
  let dir: string;
  let app: Database.Database;
  const dbFile = (): string => join(dir, 'app', 'androidx.work.workdb');
  const cat = (path: string): ShellResult =>
    existsSync(path) ? { stdout: readFileSync(path), stderr: '', exitCode: 0 } : { stdout: Buffer.alloc(0), stderr: `cat: ${path}: No such file or directory\n`, exitCode: 1 };
  const insert = (from: number, n: number): void => {
    const stmt = app.prepare('INSERT INTO t (v) VALUES (?)');
    app.transaction(() => {
      for (let i = from; i < from + n; i++) stmt.run(`row ${i} ${'x'.repeat(200)}`);
    })();
  };
  const rowsOf = (path: string): number => {
    const db = new Database(path);
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dv-snapshot-'));
    rmSync(join(dir, 'app'), { recursive: true, force: true });
    mkdirSync(join(dir, 'app'));
    app = new Database(dbFile());
    app.pragma('journal_mode = WAL');
    app.pragma('wal_autocheckpoint = 0');
    app.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    app.pragma('wal_checkpoint(TRUNCATE)');
    insert(0, 50);
  });
  afterEach(() => {
    app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two separate reads with a checkpoint between them tear: the host copy lacks committed rows', () => {
    const main = cat(dbFile());
    // The app commits, checkpoints (the WAL restarts) and commits again, between the two reads.
    insert(50, 50);
    app.pragma('wal_checkpoint(TRUNCATE)');
    insert(100, 10);
    const wal = cat(`${dbFile()}-wal`);
    const copy = join(dir, 'copy.db');
    writeFileSync(copy, main.stdout);
    writeFileSync(`${copy}-wal`, wal.stdout);
    expect((app.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).to.equal(110);
    let seen: number | string;
    try {
      seen = rowsOf(copy);
    } catch (e) {
      seen = (e as Error).message;
    }
    expect(seen).to.not.equal(110);
  });

  it('one invocation: the same change between its commands is seen (ReadAgain), and a quiet one gives every committed row', async () => {
    const read = databaseRead('emulator-5554', { pkg: PKG, db: 'no_backup/androidx.work.workdb', hostDir: join(dir, 'host') });
    expect(read.commands).to.deep.equal([
      ['run-as', PKG, 'cat', 'no_backup/androidx.work.workdb-wal'],
      ['run-as', PKG, 'cat', 'no_backup/androidx.work.workdb'],
      ['run-as', PKG, 'cat', 'no_backup/androidx.work.workdb-wal'],
    ]);
    // The commands run one after another on the device; the app checkpoints between them.
    const walBefore = cat(`${dbFile()}-wal`);
    const main = cat(dbFile());
    insert(50, 50);
    app.pragma('wal_checkpoint(TRUNCATE)');
    insert(100, 10);
    const walAfter = cat(`${dbFile()}-wal`);
    let error: unknown;
    await Promise.resolve(read.parse([walBefore, main, walAfter])).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(ReadAgain);
    // Sent again with nothing written meanwhile: one snapshot, every row.
    const again = [cat(`${dbFile()}-wal`), cat(dbFile()), cat(`${dbFile()}-wal`)];
    const pulled = await read.parse(again);
    try {
      expect(pulled.hasWal).to.equal(true);
      expect(rowsOf(pulled.dbPath)).to.equal(110);
    } finally {
      await pulled.cleanup();
    }
  });

  it('a checkpoint that only copies -wal frames into the main file while it is read keeps the snapshot whole', async () => {
    const read = databaseRead('emulator-5554', { pkg: PKG, db: 'no_backup/androidx.work.workdb', hostDir: join(dir, 'host2') });
    const walBefore = cat(`${dbFile()}-wal`);
    app.pragma('wal_checkpoint(PASSIVE)');
    const main = cat(dbFile());
    const walAfter = cat(`${dbFile()}-wal`);
    expect(walAfter.stdout.equals(walBefore.stdout)).to.equal(true);
    const pulled = await read.parse([walBefore, main, walAfter]);
    try {
      expect(rowsOf(pulled.dbPath)).to.equal(50);
    } finally {
      await pulled.cleanup();
    }
  });
});
