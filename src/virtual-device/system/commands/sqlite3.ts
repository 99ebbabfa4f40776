/**
 * The `sqlite3` command-line shell (shipped in AOSP `PRODUCT_PACKAGES_DEBUG`: userdebug/eng
 * images only: aosp-mirror/platform_build target/product/base_system.mk @a331c2ee), over
 * better-sqlite3 on the file's real host path.
 *
 * Output as the CLI prints it (sqlite.org shell.c, checked against sqlite3 3.40.1):
 * list mode joins columns with `|`, NULL prints as the empty string, reals as "%!.15g", blobs raw;
 * `-header` prints each statement's column names first; `.tables` prints the names in columns
 * (`%-*s` padded to the longest name, two spaces between, 80 columns); `.schema [TABLE]` prints
 * the stored CREATE statements with `;` in creation order. Errors: SQLite 3.39 (API 34) prints
 * `Error: in prepare, <msg>` for SQL given as an argument and `Parse error near line N: <msg>` for
 * SQL read from stdin; SQLite 3.28/3.32 (API 30/33) print `Error: <msg>` / `Error: near line N:
 * <msg>` (the exact wording per release is UNCONFIRMED). A failed open prints
 * `Error: unable to open database "<name>": unable to open database file`. Exit status 1 on error.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { CommandContext } from '../../types.js';
import { resolveAndroidPath, dirnameOf } from '../../fs/android-path.js';
import type { AndroidSystem } from '../android-system.js';

type Mode = 'list' | 'csv' | 'line' | 'json';

interface CliState {
  header: boolean;
  mode: Mode;
  separator: string;
  nullValue: string;
  bail: boolean;
  out: string;
  err: string;
  failed: boolean;
}

/** SQLite's "%!.15g": 15 significant digits, %g's exponent rule, a real always shows a decimal point. */
export function formatReal(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? 'Inf' : v < 0 ? '-Inf' : 'NaN';
  if (v === 0) return '0.0';
  const [mantissa = '0', expText = '0'] = v.toExponential(14).split('e');
  const exp = Number(expText);
  const trim = (m: string): string => (m.includes('.') ? m.replace(/0+$/, '').replace(/\.$/, '.0') : `${m}.0`);
  if (exp < -4 || exp >= 15) {
    const sign = exp < 0 ? '-' : '+';
    return `${trim(mantissa)}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return trim(v.toFixed(Math.max(0, 14 - exp)));
}

function cellText(v: unknown, nullValue: string): string {
  if (v === null || v === undefined) return nullValue;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return formatReal(v);
  if (Buffer.isBuffer(v)) return v.toString('latin1');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Splits SQL text into complete statements (quotes, identifiers and comments respected). */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let cur = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === close) {
          if (close !== ']' && sql[j + 1] === close) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      cur += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === ';') {
      if (cur.trim() !== '') out.push(cur.trim());
      cur = '';
      i++;
    } else {
      cur += c;
      i++;
    }
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}

function csvQuote(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function runStatement(db: Database.Database, sql: string, st: CliState): void {
  const stmt = db.prepare(sql);
  if (!stmt.reader) {
    stmt.run();
    return;
  }
  stmt.safeIntegers(true);
  const columns = stmt.columns().map((c) => c.name);
  const rows = stmt.raw(true).all() as unknown[][];
  switch (st.mode) {
    case 'list':
    case 'csv': {
      const sep = st.mode === 'csv' ? ',' : st.separator;
      const fmt = (v: unknown): string => (st.mode === 'csv' ? (v === null ? '' : csvQuote(cellText(v, st.nullValue))) : cellText(v, st.nullValue));
      if (st.header && rows.length > 0) st.out += `${columns.map((c) => (st.mode === 'csv' ? csvQuote(c) : c)).join(sep)}\n`;
      for (const row of rows) st.out += `${row.map(fmt).join(sep)}\n`;
      return;
    }
    case 'line': {
      const w = Math.max(5, ...columns.map((c) => c.length));
      rows.forEach((row, i) => {
        if (i > 0) st.out += '\n';
        row.forEach((v, k) => {
          st.out += `${(columns[k] ?? '').padStart(w)} = ${cellText(v, st.nullValue)}\n`;
        });
      });
      return;
    }
    case 'json': {
      if (rows.length === 0) return;
      const objs = rows.map((row) => `{${row.map((v, k) => `${JSON.stringify(columns[k])}:${v === null ? 'null' : typeof v === 'bigint' || typeof v === 'number' ? cellText(v, 'null') : JSON.stringify(cellText(v, ''))}`).join(',')}}`);
      st.out += `[${objs.join(',\n')}]\n`;
      return;
    }
    default: {
      const unreachable: never = st.mode;
      return unreachable;
    }
  }
}

function dotCommand(db: Database.Database, line: string, st: CliState): boolean {
  const parts = line.trim().split(/\s+/);
  const cmd = parts[0] ?? '';
  const arg = parts[1];
  switch (cmd) {
    case '.tables': {
      const names = (db.prepare("SELECT name FROM sqlite_schema WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY 1").all() as { name: string }[])
        .map((r) => r.name)
        .filter((n) => arg === undefined || new RegExp(`^${arg.replaceAll('%', '.*').replaceAll('_', '.')}$`).test(n));
      if (names.length === 0) return true;
      const maxlen = Math.max(...names.map((n) => n.length));
      const nPrintCol = Math.max(1, Math.floor(80 / (maxlen + 2)));
      const nPrintRow = Math.ceil(names.length / nPrintCol);
      for (let i = 0; i < nPrintRow; i++) {
        let row = '';
        for (let j = i; j < names.length; j += nPrintRow) row += `${j < nPrintRow ? '' : '  '}${names[j]!.padEnd(maxlen)}`;
        st.out += `${row}\n`;
      }
      return true;
    }
    case '.schema': {
      const rows = (
        arg === undefined
          ? db.prepare("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_autoindex%' ORDER BY rowid").all()
          : db.prepare('SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND tbl_name LIKE ? ORDER BY rowid').all(arg)
      ) as { sql: string }[];
      for (const r of rows) st.out += `${r.sql};\n`;
      return true;
    }
    case '.headers':
    case '.header':
      st.header = arg === 'on' || arg === '1' || arg === 'yes';
      return true;
    case '.mode':
      if (arg === 'list' || arg === 'csv' || arg === 'line' || arg === 'json') st.mode = arg;
      return true;
    case '.separator':
      if (arg !== undefined) st.separator = arg;
      return true;
    case '.nullvalue':
      st.nullValue = arg ?? '';
      return true;
    case '.quit':
    case '.exit':
      return false;
    default:
      st.err += `Error: unknown command or invalid arguments:  "${cmd.slice(1)}". Enter ".help" for help\n`;
      st.failed = true;
      return true;
  }
}

export function sqlite3Command(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  const api = system.device.apiLevel;
  return async (ctx) => {
    const st: CliState = { header: false, mode: 'list', separator: '|', nullValue: '', bail: false, out: '', err: '', failed: false };
    let readonly = false;
    const positional: string[] = [];
    const args = ctx.argv.slice(1);
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (positional.length === 0 && a.startsWith('-') && a.length > 1) {
        const opt = a.replace(/^--?/, '-');
        if (opt === '-header') st.header = true;
        else if (opt === '-noheader') st.header = false;
        else if (opt === '-csv') st.mode = 'csv';
        else if (opt === '-line') st.mode = 'line';
        else if (opt === '-list') st.mode = 'list';
        else if (opt === '-json') st.mode = 'json';
        else if (opt === '-separator') st.separator = args[++i] ?? '|';
        else if (opt === '-nullvalue') st.nullValue = args[++i] ?? '';
        else if (opt === '-readonly') readonly = true;
        else if (opt === '-bail') st.bail = true;
        else if (opt === '-batch' || opt === '-interactive') continue;
        else if (opt === '-version') {
          await ctx.stdout.write(api >= 34 ? '3.39.2 2022-07-21\n' : api >= 31 ? '3.32.2 2020-06-04\n' : '3.28.0 2019-04-16\n');
          return 0;
        } else {
          await ctx.stderr.write(`${ctx.argv[0]}: Error: unknown option: ${a}\nUse -help for a list of options.\n`);
          return 1;
        }
      } else positional.push(a);
    }
    const fileArg = positional[0] ?? ':memory:';
    let db: Database.Database;
    try {
      if (fileArg === ':memory:') db = new Database(':memory:');
      else {
        const abs = resolveAndroidPath(fileArg, ctx.cwd);
        const fs = system.device.fs;
        const exists = await fs.exists(abs);
        const allowed = exists ? await fs.access(abs, ctx.uid, readonly ? 4 : 6) : (await fs.exists(dirnameOf(abs))) && (await fs.access(dirnameOf(abs), ctx.uid, 3));
        const host = system.device.hostPath(abs);
        if (!allowed || (!exists && !existsSync(system.device.hostPath(dirnameOf(abs))))) throw new Error('unable to open database file');
        db = new Database(host, { readonly: readonly && exists });
      }
    } catch {
      await ctx.stderr.write(`Error: unable to open database "${fileArg}": unable to open database file\n`);
      return 1;
    }
    try {
      const sqlArgs = positional.slice(1);
      if (sqlArgs.length > 0) {
        for (const text of sqlArgs) {
          if (text.trimStart().startsWith('.')) {
            if (!dotCommand(db, text, st)) break;
            continue;
          }
          let stop = false;
          for (const sql of splitStatements(text)) {
            try {
              runStatement(db, sql, st);
            } catch (e) {
              st.err += api >= 34 ? `Error: in prepare, ${(e as Error).message}\n` : `Error: ${(e as Error).message}\n`;
              st.failed = true;
              stop = true;
              break;
            }
          }
          if (stop) break;
        }
      } else {
        const chunks: Buffer[] = [];
        for await (const c of ctx.stdin) chunks.push(Buffer.from(c));
        const input = Buffer.concat(chunks).toString('utf8');
        let pending = '';
        let pendingLine = 1;
        const lines = input.split('\n');
        for (let n = 0; n < lines.length; n++) {
          const line = lines[n]!;
          if (pending === '' && line.trimStart().startsWith('.')) {
            if (!dotCommand(db, line, st)) break;
            continue;
          }
          if (pending === '') pendingLine = n + 1;
          pending += `${line}\n`;
          if (!/;\s*$/.test(line)) continue;
          for (const sql of splitStatements(pending)) {
            try {
              runStatement(db, sql, st);
            } catch (e) {
              st.err += api >= 34 ? `Parse error near line ${pendingLine}: ${(e as Error).message}\n` : `Error: near line ${pendingLine}: ${(e as Error).message}\n`;
              st.failed = true;
              if (st.bail) break;
            }
          }
          pending = '';
        }
        if (pending.trim() !== '') {
          for (const sql of splitStatements(pending)) {
            try {
              runStatement(db, sql, st);
            } catch (e) {
              st.err += `Parse error near line ${pendingLine}: ${(e as Error).message}\n`;
              st.failed = true;
            }
          }
        }
      }
    } finally {
      db.close();
    }
    if (st.out !== '') await ctx.stdout.write(st.out);
    if (st.err !== '') await ctx.stderr.write(st.err);
    return st.failed ? 1 : 0;
  };
}
