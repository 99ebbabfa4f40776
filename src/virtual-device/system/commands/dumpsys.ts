/**
 * `dumpsys [SERVICE [ARGS...]]`.
 * Source: frameworks/native cmds/dumpsys/dumpsys.cpp — one service prints only its dump; an
 * unknown service prints `Can't find service: <name>` on stderr and dumpsys still exits 0;
 * `-l` prints `Currently running services:` and the names.
 * JobSchedulerService.dumpInternal: a package argument filters to its uid; an unknown package
 * prints `Invalid package: <pkg>`.
 */
import type { CommandContext } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import { dumpPackage } from './pm.js';

const SERVICES = ['activity', 'alarm', 'jobscheduler', 'notification', 'package', 'settings'];

function dumpService(system: AndroidSystem, service: string, args: readonly string[]): string | undefined {
  switch (service) {
    case 'jobscheduler': {
      const pkgArg = args.find((a) => !a.startsWith('-'));
      if (pkgArg === undefined) return system.jobs.dump(undefined);
      const p = system.packages.get(pkgArg);
      if (p === undefined) return `Invalid package: ${pkgArg}\n`;
      return system.jobs.dump(p.uid);
    }
    case 'notification':
      return system.notifications.dump(args);
    case 'package': {
      const name = args.find((a) => !a.startsWith('-'));
      if (name === undefined) return system.packages.all().map((p) => dumpPackage(system, p)).join('\n');
      const p = system.packages.get(name);
      return p === undefined ? '' : dumpPackage(system, p);
    }
    case 'activity': {
      const lines = ['ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)'];
      for (const r of system.activities.processes()) {
        lines.push(`  *APP* UID ${r.process.uid} ProcessRecord{${r.process.pid.toString(16)} ${r.process.pid}:${r.process.name}/u0a${r.process.uid - 10000}}`);
      }
      return lines.map((l) => `${l}\n`).join('');
    }
    case 'alarm':
      return `Current Alarm Manager state:\n  nowRTC=${system.device.clock.now()} nowELAPSED=${system.device.clock.elapsedRealtime()}\n`;
    case 'settings':
      return (['global', 'system', 'secure'] as const).map((ns) => `${ns.toUpperCase()} SETTINGS (user 0)\n${system.settings.list(ns).map(([k, v]) => `  _id:0 name:${k} pkg:android value:${v}\n`).join('')}`).join('\n');
    default:
      return undefined;
  }
}

export function dumpsysCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return async (ctx) => {
    const service = ctx.argv[1];
    if (service === '-l') {
      await ctx.stdout.write(`Currently running services:\n${SERVICES.map((s) => `  ${s}\n`).join('')}`);
      return 0;
    }
    if (service === undefined) {
      for (const s of SERVICES) {
        await ctx.stdout.write(`-------------------------------------------------------------------------------\nDUMP OF SERVICE ${s}:\n${dumpService(system, s, []) ?? ''}`);
      }
      return 0;
    }
    const text = dumpService(system, service, ctx.argv.slice(2));
    if (text === undefined) {
      await ctx.stderr.write(`Can't find service: ${service}\n`);
      return 0;
    }
    if (text !== '') await ctx.stdout.write(text);
    return 0;
  };
}
