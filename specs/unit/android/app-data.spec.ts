import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { assertRunAs, deleteRows, editSharedPrefs, loadDatabaseBackup, pullDatabase, readSharedPrefs, readTableRows, restoreDatabase, updateRows } from '../../../src/android/app-data.js';
import { setLongPref } from '../../../src/android/shared-prefs-edit.js';
import { DedupVerifyError } from '../../../src/errors.js';
import { FakeDevice } from './fake-device.js';

const PKG = 'com.example.feednotifier';

/** Splits a command line written by the harness into words (single quotes only). */
function words(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (quoted) {
      if (c === "'") quoted = false;
      else current += c;
    } else if (c === "'") {
      quoted = true;
      inWord = true;
    } else if (c === '\\' && line[i + 1] === "'") {
      current += "'";
      i++;
      inWord = true;
    } else if (c === ' ') {
      if (inWord) out.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) out.push(current);
  return out;
}

/** An app data directory behind run-as, with the few commands the harness uses. */
function appDevice(files: Map<string, Buffer>, options: { debuggable?: boolean; stdinRefused?: boolean; garbleWrites?: boolean } = {}) {
  const events: string[] = [];
  const device = new FakeDevice((argv, opts) => {
    if (argv[0] === 'am' && argv[1] === 'force-stop') {
      events.push(`force-stop ${argv[2]}`);
      return {};
    }
    if (argv[0] === 'rm') {
      for (const path of argv.slice(2)) device.pushed.delete(path);
      return {};
    }
    if (argv[0] !== 'run-as' || argv[1] !== PKG) return { exitCode: 127, stderr: `unexpected: ${argv.join(' ')}` };
    if (options.debuggable === false) return { exitCode: 1, stderr: `run-as: package not debuggable: ${PKG}\n` };
    const [cmd, ...args] = argv.slice(2);
    if (cmd === 'id') return { stdout: '10190\n' };
    if (cmd === 'cat') {
      const data = files.get(args[0] ?? '');
      return data === undefined ? { exitCode: 1, stderr: `cat: ${args[0]}: No such file or directory\n` } : { stdout: data };
    }
    if (cmd === 'rm') {
      for (const path of args.slice(1)) files.delete(path);
      return {};
    }
    if (cmd === 'sh' && args[0] === '-c') {
      for (const step of (args[1] ?? '').split(' && ')) {
        const [name, ...rest] = words(step);
        if (name === 'cat' && rest[0] === '>') {
          if (options.stdinRefused) return { exitCode: 1, stderr: 'sh: can\'t create: Permission denied\n' };
          const written = opts.stdin === undefined ? Buffer.alloc(0) : Buffer.from(opts.stdin);
          // A storage that does not keep what it was given: the last byte lost.
          files.set(rest[1] ?? '', options.garbleWrites === true ? written.subarray(0, written.length - 1) : written);
          events.push(`write ${rest[1]}`);
        } else if (name === 'cp') {
          const data = device.pushed.get(rest[0] ?? '');
          if (data === undefined) return { exitCode: 1, stderr: 'cp: no source\n' };
          files.set(rest[1] ?? '', data);
        } else if (name === 'mv' && rest[0] === '-f') {
          const data = files.get(rest[1] ?? '');
          if (data === undefined) return { exitCode: 1, stderr: 'mv: no source\n' };
          files.delete(rest[1] ?? '');
          files.set(rest[2] ?? '', data);
          events.push(`mv ${rest[2]}`);
        } else if (name === 'chmod') {
          // The mode of the replaced file, or the one asked for (the map keeps no modes).
          events.push(step);
        } else if (name === 'rm' && rest[0] === '-f') {
          for (const path of rest.slice(1)) files.delete(path);
          events.push(`rm ${rest.slice(1).join(' ')}`);
        } else {
          return { exitCode: 127, stderr: `sh: ${name}: not found\n` };
        }
      }
      return {};
    }
    return { exitCode: 127, stderr: `unexpected: ${argv.join(' ')}` };
  });
  return { device, events };
}

function sha(data: Buffer | undefined): string {
  return createHash('sha256').update(data ?? Buffer.alloc(0)).digest('hex');
}

describe('app data through run-as', () => {
  let dir: string;
  let files: Map<string, Buffer>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dv-appdata-spec-'));
    // The app's database as a running app leaves it: WAL mode, recent rows only in -wal.
    const path = join(dir, 'feed.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE notifications (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, link TEXT, title TEXT NOT NULL, published_at INTEGER NOT NULL, notified_at INTEGER NOT NULL)');
    db.exec('CREATE UNIQUE INDEX index_notifications_link ON notifications (link)');
    const insert = db.prepare('INSERT INTO notifications (link, title, published_at, notified_at) VALUES (?, ?, ?, ?)');
    insert.run(null, 'legacy', 1, 1);
    insert.run('https://feed.example.com/items/1', 'First', 1716990000000, 1717000001120);
    insert.run('https://feed.example.com/items/2', 'Second', 1716993600000, 1717000001250);
    files = new Map([
      ['databases/feed.db', readFileSync(path)],
      ['databases/feed.db-wal', readFileSync(`${path}-wal`)],
      ['databases/feed.db-shm', readFileSync(`${path}-shm`)],
    ]);
    db.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads rows that are only in the -wal (the three files are pulled together)', async () => {
    // Without its -wal the main file does not even hold the table yet.
    const mainOnly = join(dir, 'main-only.db');
    writeFileSync(mainOnly, files.get('databases/feed.db') ?? Buffer.alloc(0));
    const bare = new Database(mainOnly, { readonly: true });
    expect(bare.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'notifications'").get()).to.deep.equal({ n: 0 });
    bare.close();
    const { device } = appDevice(files);
    const rows = await readTableRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications', where: 'link IS NOT NULL' });
    expect(rows.map((r) => r['link'])).to.deep.equal(['https://feed.example.com/items/1', 'https://feed.example.com/items/2']);
  });

  it('pulls a database as one snapshot: a checkpoint between the reads makes it read again', async () => {
    // The app checkpoints right after the harness read the -wal the first time: the main file
    // gains the -wal's pages and the -wal restarts. A copy of the old -wal beside the new main
    // file would be torn; the -wal read again after the main file tells.
    const path = join(dir, 'feed.db');
    const db = new Database(path);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.prepare('INSERT INTO notifications (link, title, published_at, notified_at) VALUES (?, ?, ?, ?)').run('https://feed.example.com/items/3', 'Third', 1716997200000, 1717000001300);
    const after = { main: readFileSync(path), wal: readFileSync(`${path}-wal`) };
    db.close();
    let walReads = 0;
    const live = new Map(files);
    const swapping = new Map(files);
    swapping.get = (key: string): Buffer | undefined => {
      if (key === 'databases/feed.db-wal' && ++walReads === 1) {
        const before = live.get(key);
        live.set('databases/feed.db', after.main);
        live.set(key, after.wal);
        return before;
      }
      return live.get(key);
    };
    const { device } = appDevice(swapping);
    const pulled = await pullDatabase(device, { pkg: PKG, db: 'feed.db' });
    try {
      expect(walReads).to.equal(4);
      expect(sha(readFileSync(pulled.dbPath))).to.equal(sha(after.main));
      expect(sha(readFileSync(`${pulled.dbPath}-wal`))).to.equal(sha(after.wal));
      const copy = new Database(pulled.dbPath, { readonly: true });
      expect(copy.prepare('SELECT count(*) AS n FROM notifications').get()).to.deep.equal({ n: 4 });
      copy.close();
    } finally {
      await pulled.cleanup();
    }
  });

  it('deletes rows on a backed-up copy, removes the stale -wal/-shm, and restores exactly', async () => {
    const original = new Map(files);
    const { device, events } = appDevice(files);
    const backupDir = join(dir, 'backup');
    const result = await deleteRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications', where: 'link = ?', params: ['https://feed.example.com/items/1'], backupDir });
    expect(result.deletedRows).to.equal(1);
    expect(result.remainingRows).to.equal(2);
    // The table as the check copy pulled from the device after the write holds it.
    expect(result.rows.map((r) => r['link'])).to.deep.equal([null, 'https://feed.example.com/items/2']);
    // The main file is read twice: for the backup, and for the check (which stands for the write's read-back).
    expect(device.calls.filter((c) => c.argv.join(' ') === `run-as ${PKG} cat databases/feed.db`)).to.have.length(2);
    expect(events[0]).to.equal(`force-stop ${PKG}`);
    expect(events.slice(1)).to.have.length(4);
    // The temp file takes the mode of the database it replaces before the rename.
    expect(events[2]).to.match(/^chmod "\$\(stat -c %a databases\/feed\.db 2>\/dev\/null \|\| echo 600\)" databases\/feed\.db\.dv-[0-9a-f]+$/);
    expect(events[3]).to.equal('mv databases/feed.db');
    expect(events[4]).to.equal('rm databases/feed.db-wal databases/feed.db-shm databases/feed.db-journal');
    expect([...files.keys()].sort()).to.deep.equal(['databases/feed.db']);
    // The device file is a complete database without its WAL: the deleted row is gone, the others are there.
    const check = join(dir, 'check.db');
    writeFileSync(check, files.get('databases/feed.db') ?? Buffer.alloc(0));
    const db = new Database(check, { readonly: true });
    expect(db.prepare('SELECT link FROM notifications ORDER BY id').all()).to.deep.equal([{ link: null }, { link: 'https://feed.example.com/items/2' }]);
    expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
    db.close();
    // The backup holds the originals, byte for byte.
    const backup = await loadDatabaseBackup(backupDir);
    expect(backup).to.deep.include({ pkg: PKG, db: 'databases/feed.db', hasWal: true });
    expect(backup).to.not.have.property('hasShm');
    expect(backup.sha256).to.deep.equal({ main: sha(original.get('databases/feed.db')), wal: sha(original.get('databases/feed.db-wal')) });

    await restoreDatabase(device, backup);
    expect(sha(files.get('databases/feed.db'))).to.equal(sha(original.get('databases/feed.db')));
    expect(sha(files.get('databases/feed.db-wal'))).to.equal(sha(original.get('databases/feed.db-wal')));
    expect(files.has('databases/feed.db-shm')).to.equal(false);
    const restored = await readTableRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications' });
    expect(restored).to.have.length(3);
  });

  it('refuses an edit whose database does not read back as the bytes written, keeping the backup', async () => {
    const { device } = appDevice(files, { garbleWrites: true });
    const backupDir = join(dir, 'garbled');
    const failed = await deleteRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications', where: 'link = ?', params: ['https://feed.example.com/items/1'], backupDir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).to.be.instanceOf(DedupVerifyError);
    expect((failed as Error).message).to.match(/^Wrote databases\/feed\.db of com\.example\.feednotifier on fake-1 but reading it back gave \d+ different bytes; the backup is in /);
    expect((await loadDatabaseBackup(backupDir)).db).to.equal('databases/feed.db');
  });

  it('falls back to a pushed copy and run-as cp when writing through stdin is refused', async () => {
    const { device } = appDevice(files, { stdinRefused: true });
    const result = await deleteRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications', backupDir: join(dir, 'b2') });
    expect(result).to.deep.include({ deletedRows: 3, remainingRows: 0 });
    expect(device.commandLines().some((l) => /^run-as com\.example\.feednotifier sh -c 'cp \/data\/local\/tmp\/dv-[0-9a-f]+ /.test(l))).to.equal(true);
    expect(device.pushed.size).to.equal(0);
  });

  it('stops with DV_NOT_DEBUGGABLE and the fix for a release build', async () => {
    const { device } = appDevice(files, { debuggable: false });
    try {
      await assertRunAs(device, PKG);
      expect.fail('assertRunAs passed');
    } catch (e) {
      expect(e).to.be.instanceOf(DedupVerifyError).with.property('code', 'DV_NOT_DEBUGGABLE');
      expect((e as Error).message).to.equal(
        `run-as refused ${PKG} on fake-1: "run-as: package not debuggable: ${PKG}". Install a debuggable build (android:debuggable="true", e.g. the debug variant) and run again.`,
      );
    }
  });

  it('reads shared preferences, and null for a missing file', async () => {
    files.set('shared_prefs/feed_prefs.xml', Buffer.from('<map>\n    <long name="last_seen_published_at" value="5" />\n</map>\n'));
    const { device } = appDevice(files);
    expect(await readSharedPrefs(device, PKG, 'feed_prefs')).to.deep.equal({ last_seen_published_at: { type: 'long', value: 5 } });
    expect(await readSharedPrefs(device, PKG, 'absent')).to.equal(null);
  });

  it('sets a column of the matching rows on a backed-up copy (a flag cleared), the rows staying, and verifies it', async () => {
    const original = new Map(files);
    const { device, events } = appDevice(files);
    const backupDir = join(dir, 'flag-backup');
    const result = await updateRows(device, {
      pkg: PKG, db: 'feed.db', table: 'notifications', where: 'link IN (?, ?)', params: ['https://feed.example.com/items/1', 'https://feed.example.com/items/9'],
      set: { column: 'notified_at', value: 0 }, backupDir,
    });
    expect(result.updatedRows).to.equal(1);
    expect(events[0]).to.equal(`force-stop ${PKG}`);
    expect([...files.keys()].sort()).to.deep.equal(['databases/feed.db']);
    const rowsNow = await readTableRows(device, { pkg: PKG, db: 'feed.db', table: 'notifications' });
    expect(rowsNow.map((r) => [r['link'], r['notified_at']])).to.deep.equal([[null, 1], ['https://feed.example.com/items/1', 0], ['https://feed.example.com/items/2', 1717000001250]]);
    const backup = await loadDatabaseBackup(backupDir);
    expect(backup.sha256).to.deep.equal({ main: sha(original.get('databases/feed.db')), wal: sha(original.get('databases/feed.db-wal')) });
  });

  it('moves a SharedPreferences <long> with the app stopped, backing up the file and its .bak, starting from the .bak and removing it', async () => {
    const prefs = (value: number): Buffer => Buffer.from(`<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n    <long name="mark" value="${value}" />\n</map>\n`);
    files.set('shared_prefs/state.xml', prefs(30));
    // A write interrupted mid-way: SharedPreferencesImpl would read the .bak, not the file.
    files.set('shared_prefs/state.xml.bak', prefs(20));
    const { device, events } = appDevice(files);
    const backupDir = join(dir, 'prefs-backup');
    const seen: string[] = [];
    const backup = await editSharedPrefs(device, { pkg: PKG, path: 'shared_prefs/state.xml', backupDir, now: () => 42 }, (xml) => {
      seen.push(xml);
      return setLongPref(xml, 'mark', 10);
    });
    expect(seen).to.deep.equal([prefs(20).toString('utf8')]);
    expect(events[0]).to.equal(`force-stop ${PKG}`);
    expect(files.get('shared_prefs/state.xml')?.toString('utf8')).to.equal(prefs(10).toString('utf8'));
    expect(files.has('shared_prefs/state.xml.bak')).to.equal(false);
    expect(backup).to.deep.equal({
      pkg: PKG, dir: backupDir, createdAtMs: 42,
      files: [{ path: 'shared_prefs/state.xml', sha256: sha(prefs(30)) }, { path: 'shared_prefs/state.xml.bak', sha256: sha(prefs(20)) }],
    });
    expect(readFileSync(join(backupDir, 'files', 'shared_prefs', 'state.xml'))).to.deep.equal(prefs(30));
    expect(readFileSync(join(backupDir, 'files', 'shared_prefs', 'state.xml.bak'))).to.deep.equal(prefs(20));
  });

  it('refuses to edit SharedPreferences the app does not have', async () => {
    const { device } = appDevice(files);
    try {
      await editSharedPrefs(device, { pkg: PKG, path: 'shared_prefs/absent.xml', backupDir: join(dir, 'none') }, (xml) => xml);
      expect.fail('edited a missing file');
    } catch (e) {
      expect(e).to.have.property('code', 'DV_DEVICE_COMMAND');
      expect((e as Error).message).to.equal(`${PKG} has no shared_prefs/absent.xml on fake-1 (has the app run yet?).`);
    }
  });

  it('refuses paths outside the data directory before touching the device', async () => {
    const { device } = appDevice(files);
    try {
      await readTableRows(device, { pkg: PKG, db: '../other/x.db', table: 't' });
      expect.fail('accepted ../');
    } catch (e) {
      expect(e).to.have.property('code', 'DV_CONFIG');
    }
    expect(device.calls).to.deep.equal([]);
  });
});
