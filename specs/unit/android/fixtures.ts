/**
 * Loads fixtures/device-output/<api>/<command>.txt: the provenance header (ended by `# ---`)
 * and the output bytes after it, read by the same code that reads a capture directory.
 */
import { readFileSync } from 'node:fs';
import { readDeviceOutput } from '../../../src/android/capture/provenance.js';

export interface DeviceOutputFixture {
  readonly provenance: 'captured' | 'derived';
  readonly source: string;
  readonly apiLevel: string;
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly stream: 'stdout' | 'stderr';
  readonly body: string;
}

export function loadFixture(relativePath: string): DeviceOutputFixture {
  const url = new URL(`../../../fixtures/device-output/${relativePath}`, import.meta.url);
  const { header, body } = readDeviceOutput(readFileSync(url, 'utf8'));
  if (header === null) throw new Error(`${relativePath}: no provenance header (every fixture names its source)`);
  return { ...header, exitCode: header.exitCode, body };
}
