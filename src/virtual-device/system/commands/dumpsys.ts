/**
 * `dumpsys [SERVICE [ARGS...]]`.
 * Source: frameworks/native cmds/dumpsys/dumpsys.cpp — one service prints only its dump; an
 * unknown service prints `Can't find service: <name>` on stderr and dumpsys still exits 0;
 * `-l` prints `Currently running services:` and the names.
 * JobSchedulerService.dumpInternal: a package argument filters to its uid; an unknown package
 * prints `Invalid package: <pkg>`.
 * `dumpsys activity services [PKG]` (A14 ActiveServices.ServiceDumper, ServiceRecord.toString and
 * dump: `isForeground=… foregroundId=… types=%08X foregroundNoti=…` only for foreground services;
 * `(nothing)` when no service matches). `dumpsys deviceidle whitelist +PKG` prints `Added: PKG`
 * (DeviceIdleController.onShellCommand via dump; an unknown package prints `Unknown package: PKG`).
 */
import type { CommandContext } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import { dumpPackage } from './pm.js';
import { flattenToShortString } from '../intent.js';
import { formatDuration, formatUid, integerToHexString } from '../java-lang.js';

/** `dumpsys activity services [PKG]`. */
function dumpServices(system: AndroidSystem, pkgFilter: string | undefined): string {
  const lines = ['ACTIVITY MANAGER SERVICES (dumpsys activity services)'];
  const services = system.activities.startedServices(pkgFilter);
  if (services.length === 0) {
    lines.push('  (nothing)');
    return lines.map((l) => `${l}\n`).join('');
  }
  const nowElapsed = system.device.clock.elapsedRealtime();
  lines.push('  User 0 active services:');
  for (const sr of services) {
    const pkg = system.packages.get(sr.component.packageName);
    const record = system.activities.processOf(sr.component.packageName);
    const short = flattenToShortString(sr.component);
    const manifest = pkg?.definition?.manifest.services.find((x) => x.name === sr.component.className);
    lines.push(`  * ServiceRecord{${integerToHexString(sr.identityHash)} u0 ${short} c:${sr.component.packageName}}`);
    lines.push(`    intent={cmp=${short}}`);
    lines.push(`    packageName=${sr.component.packageName}`);
    lines.push(`    processName=${sr.component.packageName}`);
    if (manifest?.permission !== undefined) lines.push(`    permission=${manifest.permission}`);
    if (pkg !== undefined) {
      lines.push(`    baseDir=${system.packages.apkPath(pkg)}`);
      lines.push(`    dataDir=${system.packages.dataDir(pkg.packageName)}`);
    }
    lines.push(`    app=${record === undefined ? 'null' : `ProcessRecord{${integerToHexString(record.process.pid * 7919)} ${record.process.pid}:${record.process.name}/${formatUid(record.process.uid)}}`}`);
    if (sr.isForeground || sr.foregroundId !== 0) {
      lines.push(`    isForeground=${String(sr.isForeground)} foregroundId=${sr.foregroundId} types=00000000 foregroundNoti=${sr.foregroundNoti ?? 'null'}`);
    }
    lines.push(`    createTime=${formatDuration(sr.createRealtimeMs - nowElapsed)} startingBgTimeout=--`);
    lines.push(`    lastActivity=${formatDuration(sr.lastActivityMs - nowElapsed)} restartTime=${formatDuration(sr.lastActivityMs - nowElapsed)} createdFromFg=true`);
    lines.push(`    startRequested=true delayedStop=false stopIfKilled=false callStart=true lastStartId=${sr.lastStartId}`);
    lines.push('');
  }
  return lines.map((l) => `${l}\n`).join('');
}

const SERVICES = ['activity', 'alarm', 'deviceidle', 'jobscheduler', 'notification', 'package', 'settings'];

/** The dump of one service (`dumpsys SERVICE ARGS...`, also a ShellCommand's `dump`); undefined for an unknown service. */
export function dumpService(system: AndroidSystem, service: string, args: readonly string[]): string | undefined {
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
    case 'deviceidle': {
      if (args[0] !== 'whitelist') return '';
      return args
        .slice(1)
        .filter((a) => a.startsWith('+') || a.startsWith('-'))
        .map((a) => {
          const name = a.slice(1);
          if (system.packages.get(name) === undefined) return `Unknown package: ${name}\n`;
          return a.startsWith('+') ? `Added: ${name}\n` : `Removed: ${name}\n`;
        })
        .join('');
    }
    case 'activity': {
      if (args[0] === 'services' || args[0] === 's') return dumpServices(system, args.slice(1).find((a) => !a.startsWith('-')));
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
