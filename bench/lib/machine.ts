/** What the figures were measured on. */
import { cpus, loadavg, totalmem } from 'node:os';
import { adbVersion } from './adb-server.js';

export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly adb: string;
  readonly platform: string;
}

export async function describeMachine(): Promise<Machine> {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown CPU',
    memoryGiB: totalmem() / 2 ** 30,
    node: process.version,
    adb: await adbVersion(),
    platform: `${process.platform}/${process.arch}`,
  };
}

export function formatMachine(m: Machine): string {
  return `${m.cpus} CPUs (nproc; ${m.cpuModel}), ${m.memoryGiB.toFixed(1)} GiB RAM, ${m.platform}, Node ${m.node}, adb ${m.adb}`;
}

/** The 1-minute load average: other work on the machine shows in the figures. */
export function loadNow(): string {
  return loadavg()[0]?.toFixed(2) ?? '?';
}
