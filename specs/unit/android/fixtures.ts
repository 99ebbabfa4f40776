/**
 * Loads fixtures/device-output/<api>/<command>.txt: the provenance header (ended by `# ---`)
 * and the output bytes after it.
 */
import { readFileSync } from 'node:fs';

export interface DeviceOutputFixture {
  readonly provenance: 'captured' | 'derived';
  readonly source: string;
  readonly apiLevel: string;
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly stream: 'stdout' | 'stderr';
  readonly body: string;
}

const SEPARATOR = '# ---\n';

export function loadFixture(relativePath: string): DeviceOutputFixture {
  const url = new URL(`../../../fixtures/device-output/${relativePath}`, import.meta.url);
  const text = readFileSync(url, 'utf8');
  const end = text.indexOf(SEPARATOR);
  if (end < 0) throw new Error(`${relativePath}: no "# ---" line ends the provenance header`);
  const header = new Map<string, string>();
  for (const line of text.slice(0, end).split('\n')) {
    const match = /^# ([a-z-]+): (.*)$/.exec(line);
    if (match) header.set(match[1] ?? '', match[2] ?? '');
  }
  const provenance = header.get('provenance');
  if (provenance !== 'captured' && provenance !== 'derived') throw new Error(`${relativePath}: provenance must be captured or derived`);
  for (const field of ['source', 'api-level', 'command']) {
    if (!header.get(field)) throw new Error(`${relativePath}: provenance header lacks "${field}"`);
  }
  const exitCode = header.get('exit-code');
  return {
    provenance,
    source: header.get('source') ?? '',
    apiLevel: header.get('api-level') ?? '',
    command: header.get('command') ?? '',
    exitCode: exitCode === undefined ? undefined : Number(exitCode),
    stream: header.get('stream') === 'stderr' ? 'stderr' : 'stdout',
    body: text.slice(end + SEPARATOR.length),
  };
}
