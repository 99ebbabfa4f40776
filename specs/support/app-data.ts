/**
 * What specs of the reference app on the virtual device share: Java's String.hashCode computed
 * independently of the model, RFC 822 dates for fixture feeds, and a database pulled as the
 * harness pulls it (run-as cat, with its -wal and -shm), queried on a host copy.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdbServer } from './adb-server.js';

/** java.lang.String#hashCode (BigInt polynomial, not the model's code). */
export function javaHash(s: string): number {
  let h = 0n;
  for (let i = 0; i < s.length; i++) h = BigInt.asIntN(32, h * 31n + BigInt(s.charCodeAt(i)));
  return Number(h);
}

/** An RSS pubDate (whole seconds). */
export function rfc822(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString().replace('GMT', '+0000');
}

/** Pulls `rel` (relative to the app's data directory) with its -wal and -shm into a temp folder under `workDir` and queries it. */
export async function pullAppDatabase<T>(adb: AdbServer, serial: string, pkg: string, workDir: string, rel: string, query: (db: Database.Database) => T): Promise<T> {
  const dir = mkdtempSync(join(workDir, 'pull-'));
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  for (const suffix of ['', '-wal', '-shm']) {
    const r = await adb.adb(['-s', serial, 'exec-out', `run-as ${pkg} cat ${rel}${suffix}`]);
    if (r.code === 0) writeFileSync(join(dir, name + suffix), r.stdout);
  }
  const db = new Database(join(dir, name));
  try {
    return query(db);
  } finally {
    db.close();
  }
}
