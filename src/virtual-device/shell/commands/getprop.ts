/**
 * getprop (system/core/toolbox/getprop.cpp, Android 10+): no argument lists every property
 * sorted as `[name]: [value]`; NAME prints its value (empty line when unset) or DEFAULT.
 * More than two arguments: `getprop: Max 2 arguments (see "getprop --help")`, status 255.
 */
import type { Command } from '../../types.js';

export const getprop: Command = async (ctx) => {
  const args = ctx.argv.slice(1).filter((a) => a !== '--');
  if (args[0] === '--help') {
    await ctx.stdout.write('usage: getprop [-TZ] [NAME [DEFAULT]]\n\nGets an Android system property, or lists them all.\n\n-T\tShow property types instead of values\n-Z\tShow property contexts instead of values\n\n');
    return 0;
  }
  if (args.length === 0) {
    const lines = [...ctx.device.props.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `[${k}]: [${v}]\n`);
    await ctx.stdout.write(lines.join(''));
    return 0;
  }
  if (args.length > 2) {
    await ctx.stderr.write('getprop: Max 2 arguments (see "getprop --help")\n');
    return 255;
  }
  const value = ctx.device.props.get(args[0]!);
  await ctx.stdout.write(`${value === undefined || value === '' ? (args[1] ?? '') : value}\n`);
  return 0;
};
