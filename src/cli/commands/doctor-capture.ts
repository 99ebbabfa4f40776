/**
 * `dedup-verify doctor --capture DIR [--json]`: reads a capture directory offline and says, file
 * by file, how many records the harness's parsers understood and which lines they did not
 * (android/capture/read-capture.ts). Exit 0 when every line was understood, 1 when any was
 * not, 2 when DIR cannot be read.
 */
import { readCaptureDir, type CaptureReport } from '../../android/capture/read-capture.js';
import { UsageError } from '../../errors.js';
import type { CliIo } from '../io.js';

/** Lines shown per file in the text output (the JSON has them all). */
const SHOWN_LINES = 10;

export async function runDoctorCapture(dir: string, opts: Record<string, unknown>, io: CliIo): Promise<number> {
  let report: CaptureReport;
  try {
    report = await readCaptureDir(dir);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' || code === undefined ? 'is not a directory' : `cannot be read (${code})`;
    throw new UsageError(`--capture ${dir} ${why}: pass the directory \`dedup-verify capture --out DIR\` wrote.`, { cause: e });
  }
  if (report.files.length === 0) throw new UsageError(`--capture ${dir} holds no output files: pass the directory \`dedup-verify capture --out DIR\` wrote.`);
  const bad = report.files.filter((f) => f.notUnderstood.length > 0 || f.hint !== undefined);
  const ok = bad.length === 0;
  if (opts['json'] === true) {
    io.stdout(`${JSON.stringify({ ok, device: report.device, files: report.files }, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  const d = report.device;
  if (d !== null) io.stdout(`Capture of ${d.serial} (API ${d.apiLevel ?? 'unknown'}${d.fingerprint !== null ? `, ${d.fingerprint}` : ''}) taken ${d.date}${d.package !== null ? `, app ${d.package}` : ''}\n`);
  for (const f of report.files) {
    const status = f.notUnderstood.length > 0 || f.hint !== undefined ? 'FAIL' : 'ok  ';
    const records = `${f.understood} record${f.understood === 1 ? '' : 's'} understood`;
    const missed = f.notUnderstood.length > 0 ? `, ${f.notUnderstood.length} line${f.notUnderstood.length === 1 ? '' : 's'} not` : '';
    io.stdout(`${status} ${f.file}  (${f.kind ?? 'unknown kind'}) ${records}${missed}\n`);
    if (f.hint !== undefined) io.stdout(`       ${f.hint}\n`);
    for (const line of f.notUnderstood.slice(0, SHOWN_LINES)) io.stdout(`       | ${line}\n`);
    if (f.notUnderstood.length > SHOWN_LINES) io.stdout(`       … and ${f.notUnderstood.length - SHOWN_LINES} more (--json lists them all)\n`);
  }
  io.stdout(
    ok
      ? `Every line dedup-verify relies on was understood in ${report.files.length} files.\n`
      : `${bad.length} of ${report.files.length} files have lines dedup-verify relies on but does not understand: on such a device those records would make verdicts unknown. Attach the directory to a bug report.\n`,
  );
  return ok ? 0 : 1;
}
