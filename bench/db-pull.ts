/**
 * Benchmark 4: copying a 50 MB app database with its -wal to the host.
 *
 * - harness: `pullDatabase` (src/android/app-data.ts), which reads the main file, -wal and -shm
 *   with `run-as PKG cat` over shell v2, into a host directory;
 * - `adb pull` of the same bytes: the files are not readable by the shell user in the app's
 *   directory, so for this leg they are pushed (untimed) to /data/local/tmp and pulled from there
 *   with one `adb pull SRC… DIR`;
 * - `adb exec-out run-as PKG cat` per file, what a shell script does for the app's own files.
 *
 * The database is a real SQLite file in WAL mode (about 40 MB checkpointed into the main file
 * and 10 MB still in the -wal), written into the reference app's `databases/` with run-as.
 * Every leg's bytes are compared with the originals. Median of 3 each, interleaved.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AdbDevice } from '../src/device/adb-device.js';
import { pullDatabase, writeAppFile } from '../src/android/app-data.js';
import { startBenchAdbServer, type BenchAdbServer } from './lib/adb-server.js';
import { startDeviceProcess } from './lib/device-process.js';
import { runProcess } from './lib/processes.js';
import { benchCommand, table, type BenchOptions, type BenchSection, type Benchmark } from './lib/section.js';
import { formatMs, median, timeMs } from './lib/stats.js';

const PKG = 'com.example.feednotifier';
const DB = 'databases/bench.db';
const RUNS = 3;
/** Row payload bytes: with SQLite's page overhead the files come to about 40 MB and 10 MB. */
const MAIN_BYTES = 38_500_000;
const WAL_BYTES = 9_400_000;
const ROW_BYTES = 4000;

export const dbPull: Benchmark = {
  name: 'db-pull',
  title: 'Pulling a 50 MB app database with its -wal',
  summary: 'pullDatabase (run-as cat over shell v2) vs adb pull of the same bytes vs adb exec-out run-as cat, MB/s, median of 3',
  run: runDbPull,
};

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A WAL-mode database: MAIN_BYTES checkpointed, then WAL_BYTES more left in the -wal. */
async function makeDatabase(dir: string): Promise<{ main: Buffer; wal: Buffer }> {
  const path = join(dir, 'bench.db');
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO blobs (body) VALUES (?)');
    const fill = db.transaction((bytes: number) => {
      for (let n = 0; n < bytes; n += ROW_BYTES) insert.run(randomBytes(ROW_BYTES));
    });
    fill(MAIN_BYTES);
    db.pragma('wal_checkpoint(TRUNCATE)');
    fill(WAL_BYTES);
    // Copied while the connection is open: closing would checkpoint and delete the -wal.
    return { main: await readFile(path), wal: await readFile(`${path}-wal`) };
  } finally {
    db.close();
  }
}

async function runDbPull(options: BenchOptions): Promise<BenchSection> {
  const work = await mkdtemp(join(tmpdir(), 'dv-bench-db-'));
  const dev = await startDeviceProcess();
  let adb: BenchAdbServer | undefined;
  let device: AdbDevice | undefined;
  try {
    options.log('db-pull: writing a 50 MB WAL database into the app');
    const { main, wal } = await makeDatabase(work);
    const total = main.length + wal.length;
    adb = await startBenchAdbServer();
    await adb.connect(dev.serial);
    const d = await AdbDevice.open({ serial: dev.serial, host: '127.0.0.1', port: adb.port });
    device = d;
    await d.shellText(['run-as', PKG, 'mkdir', '-p', 'databases']);
    await writeAppFile(d, PKG, DB, main);
    await writeAppFile(d, PKG, `${DB}-wal`, wal);
    await d.push(main, '/data/local/tmp/bench.db');
    await d.push(wal, '/data/local/tmp/bench.db-wal');
    const env = adb.env;
    const adbArgs = ['-P', String(adb.port), '-s', dev.serial];

    const harness: number[] = [];
    const pull: number[] = [];
    const execOut: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const h = await timeMs(() => pullDatabase(d, { pkg: PKG, db: DB, hostDir: join(work, `harness-${i}`) }));
      if (sha(await readFile(h.value.dbPath)) !== sha(main) || sha(await readFile(`${h.value.dbPath}-wal`)) !== sha(wal)) throw new Error('pullDatabase copied different bytes');
      harness.push(h.ms);
      await h.value.cleanup();

      const dir = await mkdtemp(join(work, 'pull-'));
      const p = await runProcess('adb', [...adbArgs, 'pull', '/data/local/tmp/bench.db', '/data/local/tmp/bench.db-wal', dir], { env });
      if (p.code !== 0) throw new Error(`adb pull exited ${p.code}: ${p.stderr.trim()}`);
      if (sha(await readFile(join(dir, 'bench.db'))) !== sha(main) || sha(await readFile(join(dir, 'bench.db-wal'))) !== sha(wal)) throw new Error('adb pull copied different bytes');
      pull.push(p.ms);
      await rm(dir, { recursive: true, force: true });

      const exec = await timeMs(async () => {
        for (const [file, out] of [[DB, 'exec.db'], [`${DB}-wal`, 'exec.db-wal']] as const) {
          const r = await runProcess('bash', ['-c', `adb "$@" exec-out run-as ${PKG} cat ${file} > ${join(work, out)}`, 'adb', ...adbArgs], { env });
          if (r.code !== 0) throw new Error(`adb exec-out run-as cat ${file} exited ${r.code}: ${r.stderr.trim()}`);
        }
      });
      if ((await stat(join(work, 'exec.db'))).size !== main.length || sha(await readFile(join(work, 'exec.db-wal'))) !== sha(wal)) throw new Error('exec-out copied different bytes');
      execOut.push(exec.ms);
      options.log(`db-pull: run ${i + 1}/${RUNS}: pullDatabase ${formatMs(h.ms)}, adb pull ${formatMs(p.ms)}, exec-out ${formatMs(exec.ms)}`);
    }
    const mb = total / 1e6;
    const row = (what: string, samples: number[]): string[] => [what, formatMs(median(samples)), `${(mb / (median(samples) / 1000)).toFixed(1)} MB/s`];
    const h = median(harness);
    const p = median(pull);
    const body = [
      `${(main.length / 1e6).toFixed(1)} MB main file + ${(wal.length / 1e6).toFixed(1)} MB -wal = ${mb.toFixed(1)} MB; median of ${RUNS}; the bytes of every copy checked.`,
      '',
      table(
        ['copy to the host', 'time', 'throughput'],
        [
          row('harness `pullDatabase` (`run-as cat` of main, -wal, -shm over shell v2)', harness),
          row('`adb pull` of the same files from /data/local/tmp (sync protocol)', pull),
          row('`adb exec-out run-as PKG cat FILE > …`, one per file', execOut),
        ],
        ['l', 'r', 'r'],
      ),
      '',
      `Harness/\`adb pull\` time ratio: ${(h / p).toFixed(2)}×.`,
    ].join('\n');
    return {
      name: dbPull.name,
      title: dbPull.title,
      command: benchCommand(dbPull.name),
      body,
      headline: `${mb.toFixed(1)} MB (main + -wal): harness \`pullDatabase\` ${formatMs(h)} = ${(mb / (h / 1000)).toFixed(0)} MB/s, \`adb pull\` ${formatMs(p)} = ${(mb / (p / 1000)).toFixed(0)} MB/s (${(h / p).toFixed(2)}×)`,
    };
  } finally {
    await device?.close().catch(() => undefined);
    await adb?.stop().catch(() => undefined);
    await dev.stop();
    await rm(work, { recursive: true, force: true });
  }
}
