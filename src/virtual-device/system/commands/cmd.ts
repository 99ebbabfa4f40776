/**
 * `cmd SERVICE ARGS...`: the binder shell-command entry point.
 * Source: frameworks/native cmds/cmd/cmd.cpp — no service: `cmd: No service specified; use -l to
 * list all services` (20); unknown service: `Can't find service: <name>` on stderr (20);
 * `-l` lists the running services.
 */
import type { CommandContext } from '../../types.js';
import type { AndroidSystem } from '../android-system.js';
import { alarmHandler } from './alarm-cmd.js';
import { amHandler } from './am.js';
import { appopsHandler } from './appops.js';
import { jobschedulerHandler } from './jobscheduler-cmd.js';
import { notificationHandler } from './notification-cmd.js';
import { pmHandler } from './pm.js';
import { runShellCommand, type ShellCommandHandler } from './shell-command.js';
import { settingsHandler } from './settings.js';

export const CMD_SERVICES = ['activity', 'alarm', 'appops', 'jobscheduler', 'notification', 'package', 'settings'] as const;

export function serviceHandler(system: AndroidSystem, ctx: CommandContext, service: string): ShellCommandHandler | undefined {
  switch (service) {
    case 'activity':
      return amHandler(system, ctx);
    case 'alarm':
      return alarmHandler(system, ctx.uid);
    case 'appops':
      return appopsHandler(system);
    case 'jobscheduler':
      return jobschedulerHandler(system, ctx.uid);
    case 'notification':
      return notificationHandler(system, ctx.uid);
    case 'package':
      return pmHandler(system, ctx);
    case 'settings':
      return settingsHandler(system);
    default:
      return undefined;
  }
}

export function cmdCommand(system: AndroidSystem): (ctx: CommandContext) => Promise<number> {
  return async (ctx) => {
    const service = ctx.argv[1];
    if (service === undefined) {
      await ctx.stdout.write('cmd: No service specified; use -l to list all services\n');
      return 20;
    }
    if (service === '-l') {
      await ctx.stdout.write(`Currently running services:\n${CMD_SERVICES.map((s) => `  ${s}\n`).join('')}`);
      return 0;
    }
    const handler = serviceHandler(system, ctx, service);
    if (handler === undefined) {
      await ctx.stderr.write(`Can't find service: ${service}\n`);
      return 20;
    }
    return runShellCommand(ctx, ctx.argv.slice(2), handler);
  };
}
