/**
 * The provenance header of a device-output file: what printed the text and where it comes
 * from, ended by a `# ---` line, then the output byte for byte.
 *
 *   # provenance: captured | derived
 *   # source: where the text comes from
 *   # api-level: the Android API level, or "unknown"
 *   # command: the command that printed it
 *   # exit-code: (optional) the command's exit status
 *   # stream: (optional) stdout (default) or stderr
 *   # ---
 *
 * `dedup-verify capture` writes every file with this header, so a capture directory can be
 * moved into `fixtures/device-output/` as it is. A file without the header is read whole.
 * The header is this project's format, not Android's: nothing here depends on a device. The body
 * is kept byte for byte as the device printed it; only `\r\n` is read as `\n`, which is how lines
 * end when the command ran on a pseudo-terminal or the text was pasted on Windows: `adb shell -t`
 * allocates a pty on the device (adb's help text, AOSP system/core (aosp-mirror/platform_system_core)
 * adb/client/commandline.cpp: " -t: allocate a pty if on a tty (-tt: force pty allocation)"),
 * whose line discipline turns each `\n` the command writes into `\r\n` (ONLCR, set in the
 * Linux kernel's tty_std_termios, drivers/tty/tty_io.c: `.c_oflag = OPOST | ONLCR`). The virtual
 * device's pty shell does the same (specs/virtual/adbd-shell.spec.ts, "a pty shell turns
 * newlines into CRLF").
 */

export type Provenance = 'captured' | 'derived';
export type OutputStream = 'stdout' | 'stderr';

export interface ProvenanceHeader {
  readonly provenance: Provenance;
  readonly source: string;
  readonly apiLevel: string;
  readonly command: string;
  readonly exitCode?: number;
  readonly stream: OutputStream;
}

export interface DeviceOutputFile {
  /** Null when the file has no header (a pasted log, a raw capture). */
  readonly header: ProvenanceHeader | null;
  /** The output after the header (the whole text when there is none). */
  readonly body: string;
}

export const HEADER_END = '# ---\n';

export class ProvenanceError extends Error {}

/** Splits a file into its header and body; throws ProvenanceError on a malformed header. */
export function readDeviceOutput(text: string): DeviceOutputFile {
  const normalized = text.replace(/\r\n/g, '\n');
  if (!normalized.startsWith('# provenance: ')) return { header: null, body: normalized };
  const end = normalized.indexOf(HEADER_END);
  if (end < 0) throw new ProvenanceError('no "# ---" line ends the provenance header');
  const fields = new Map<string, string>();
  for (const line of normalized.slice(0, end).split('\n')) {
    const match = /^# ([a-z-]+): (.*)$/.exec(line);
    if (match) fields.set(match[1] ?? '', match[2] ?? '');
  }
  const provenance = fields.get('provenance');
  if (provenance !== 'captured' && provenance !== 'derived') throw new ProvenanceError('provenance must be "captured" or "derived"');
  for (const field of ['source', 'api-level', 'command']) {
    if (!fields.get(field)) throw new ProvenanceError(`the provenance header lacks "${field}"`);
  }
  const exit = fields.get('exit-code');
  if (exit !== undefined && !/^-?\d+$/.test(exit)) throw new ProvenanceError(`exit-code must be a number, not "${exit}"`);
  const header: ProvenanceHeader = {
    provenance,
    source: fields.get('source') ?? '',
    apiLevel: fields.get('api-level') ?? '',
    command: fields.get('command') ?? '',
    ...(exit !== undefined ? { exitCode: Number(exit) } : {}),
    stream: fields.get('stream') === 'stderr' ? 'stderr' : 'stdout',
  };
  return { header, body: normalized.slice(end + HEADER_END.length) };
}

/** The header text for a file (ends with the `# ---` line). */
export function formatProvenanceHeader(header: ProvenanceHeader): string {
  const lines = [
    `# provenance: ${header.provenance}`,
    `# source: ${oneLine(header.source)}`,
    `# api-level: ${oneLine(header.apiLevel)}`,
    `# command: ${oneLine(header.command)}`,
    ...(header.exitCode !== undefined ? [`# exit-code: ${header.exitCode}`] : []),
    ...(header.stream === 'stderr' ? ['# stream: stderr'] : []),
  ];
  return `${lines.join('\n')}\n${HEADER_END}`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
