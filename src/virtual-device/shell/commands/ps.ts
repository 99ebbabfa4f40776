/**
 * ps and pidof (toybox toys/posix/ps.c 0.8.9) over the device's process table
 * (shell/process-table.ts; the Android model adds its processes there).
 *
 * Android's default fields are `USER,PID,PPID,VSZ,RSS,WCHAN:10,ADDR:10,S,NAME`
 * (CFG_TOYBOX_ON_ANDROID in ps_main), printed as
 * `USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME`. Without -A/-e, ps
 * lists only the caller's own processes (its shell and itself). Memory and kernel fields are
 * not modelled (constant values).
 */
import type { Command } from '../../types.js';
import type { ProcessInfo } from '../process-table.js';
import { signalNumber, SIGNALS } from '../process-table.js';
import { idFromName, idName } from '../../fs/android-ids.js';
import { errorMsg, parseArgs, tb } from './toybox.js';

interface Column {
  header: string;
  width: number;
  left: boolean;
  value: (p: ProcessInfo) => string;
}

const COLUMNS: Readonly<Record<string, Column>> = {
  USER: { header: 'USER', width: 12, left: true, value: (p) => idName(p.uid) },
  UID: { header: 'UID', width: 5, left: false, value: (p) => String(p.uid) },
  PID: { header: 'PID', width: 5, left: false, value: (p) => String(p.pid) },
  PPID: { header: 'PPID', width: 5, left: false, value: (p) => String(p.ppid) },
  VSZ: { header: 'VSZ', width: 7, left: false, value: () => '10782796' },
  RSS: { header: 'RSS', width: 6, left: false, value: () => '3904' },
  WCHAN: { header: 'WCHAN', width: 10, left: true, value: () => '0' },
  ADDR: { header: 'ADDR', width: 10, left: false, value: () => '0' },
  S: { header: 'S', width: 1, left: true, value: () => 'S' },
  NAME: { header: 'NAME', width: 0, left: true, value: (p) => p.name },
  CMD: { header: 'CMD', width: 0, left: true, value: (p) => p.name },
  COMM: { header: 'COMM', width: 0, left: true, value: (p) => p.name },
  ARGS: { header: 'ARGS', width: 0, left: true, value: (p) => p.args.join(' ') },
  CMDLINE: { header: 'CMDLINE', width: 0, left: true, value: (p) => p.args.join(' ') },
};
const DEFAULT_FIELDS = ['USER', 'PID', 'PPID', 'VSZ', 'RSS', 'WCHAN', 'ADDR', 'S', 'NAME'];

function render(fields: readonly string[], row: (c: Column) => string): string {
  return fields
    .map((f, i) => {
      const c = COLUMNS[f]!;
      const v = row(c);
      const cell = c.width === 0 ? v : c.left ? v.padEnd(c.width) : v.padStart(c.width);
      return i === 0 ? cell : ` ${cell}`;
    })
    .join('')
    .trimEnd();
}

export const ps: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'AaedflwTZMn', args: 'pPuUgGto' });
  if (args === undefined) return 1;
  const table = tb(ctx).host.processes;
  const all = table.list();
  let fields = DEFAULT_FIELDS;
  const o = args.values.get('o');
  if (o !== undefined) {
    fields = o.flatMap((s) => s.split(',')).map((f) => f.replace(/[:=].*$/, '').toUpperCase());
    const bad = fields.find((f) => COLUMNS[f] === undefined);
    if (bad !== undefined) {
      await errorMsg(ctx, `bad -o ${bad}`);
      return 1;
    }
  }
  const pids = new Set<number>();
  for (const v of [...(args.values.get('p') ?? []), ...args.operands]) {
    for (const part of v.split(',')) {
      if (!/^\d+$/.test(part)) {
        await errorMsg(ctx, `bad ${part}`);
        return 1;
      }
      pids.add(Number(part));
    }
  }
  let shown: ProcessInfo[];
  if (args.has('A') || args.has('e')) shown = all;
  else if (pids.size > 0) shown = all.filter((p) => pids.has(p.pid));
  else {
    // The caller's session: its own process and its ancestors of the same uid.
    const mine = new Set<number>();
    let cur = table.get(tb(ctx).pid);
    while (cur !== undefined && cur.uid === ctx.uid && !mine.has(cur.pid)) {
      mine.add(cur.pid);
      cur = table.get(cur.ppid);
    }
    shown = all.filter((p) => mine.has(p.pid));
  }
  const lines = [render(fields, (c) => c.header), ...shown.map((p) => render(fields, (c) => c.value(p)))];
  await ctx.stdout.write(`${lines.join('\n')}\n`);
  return 0;
};

export const pidof: Command = async (ctx) => {
  const args = await parseArgs(ctx, { flags: 'sx', args: 'o' });
  if (args === undefined) return 1;
  const table = tb(ctx).host.processes;
  const omit = new Set((args.values.get('o') ?? []).flatMap((s) => s.split(',')));
  const found: number[] = [];
  for (const p of table.list().reverse()) {
    if (omit.has(String(p.pid))) continue;
    const base = (p.args[0] ?? p.name).split('/').pop();
    if (args.operands.some((n) => n === p.name || n === base)) {
      found.push(p.pid);
      if (args.has('s')) break;
    }
  }
  if (found.length === 0) return 1;
  await ctx.stdout.write(`${found.join(' ')}\n`);
  return 0;
};

/**
 * pgrep and pkill (toybox ps.c pgrep_main): PATTERN is an extended regex matched against the
 * process name (-f: the command line; -x: whole match); -u/-U uid filters, -n newest, -o
 * oldest, -l with names, -c count, -d DELIM; pkill sends -SIGNAL (TERM). Status 1 when no
 * process matched. The caller itself is never matched.
 */
export const pgrep: Command = async (ctx) => pgrepOrKill(ctx, false);
export const pkill: Command = async (ctx) => pgrepOrKill(ctx, true);

async function pgrepOrKill(ctx: Parameters<Command>[0], kill: boolean): Promise<number> {
  const argv = [...ctx.argv];
  let signal: number = SIGNALS.TERM;
  if (kill && argv[1] !== undefined && /^-[A-Z0-9]+$/.test(argv[1]) && signalNumber(argv[1].slice(1)) !== undefined) {
    signal = signalNumber(argv[1].slice(1))!;
    argv.splice(1, 1);
  }
  const args = await parseArgs({ ...ctx, argv }, { flags: 'clfnovxV', args: 'duUtsPgGL' });
  if (args === undefined) return 1;
  const t = tb(ctx);
  const table = t.host.processes;
  if (args.operands.length === 0 && !args.has('u') && !args.has('U') && !args.has('P')) {
    await ctx.stderr.write(`${kill ? 'pkill' : 'pgrep'}: No PATTERN (see "${kill ? 'pkill' : 'pgrep'} --help")\n`);
    return 1;
  }
  let regexes: RegExp[];
  try {
    regexes = args.operands.map((p) => new RegExp(args.has('x') ? `^(?:${p})$` : p));
  } catch {
    await errorMsg(ctx, `bad regex '${args.operands.join(' ')}'`);
    return 1;
  }
  const uids = (args.values.get('u') ?? []).concat(args.values.get('U') ?? []).flatMap((s) => s.split(',')).map((u) => idFromName(u));
  const ppids = (args.values.get('P') ?? []).flatMap((s) => s.split(',')).map(Number);
  let matches = table.list().filter((p) => {
    if (p.pid === t.pid) return false;
    const subject = args.has('f') ? p.args.join(' ') : p.name;
    if (regexes.length > 0 && !regexes.some((re) => re.test(subject))) return false;
    if (uids.length > 0 && !uids.includes(p.uid)) return false;
    if (ppids.length > 0 && !ppids.includes(p.ppid)) return false;
    return true;
  });
  if (args.has('n')) matches = matches.slice(-1);
  if (args.has('o')) matches = matches.slice(0, 1);
  if (matches.length === 0) {
    if (args.has('c')) await ctx.stdout.write('0\n');
    return 1;
  }
  if (kill) {
    for (const p of matches) table.signal(p.pid, signal, ctx.uid);
    return 0;
  }
  if (args.has('c')) {
    await ctx.stdout.write(`${matches.length}\n`);
    return 0;
  }
  const delim = args.value('d') ?? '\n';
  const items = matches.map((p) => (args.has('l') ? `${p.pid} ${p.name}` : String(p.pid)));
  await ctx.stdout.write(`${items.join(delim)}\n`);
  return 0;
}
