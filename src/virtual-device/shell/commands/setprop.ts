/**
 * setprop (system/core/toolbox/setprop.cpp): NAME VALUE, with the same name/value checks;
 * the property service then refuses:
 * - `ro.*` properties that are already set (init: read-only after first set);
 * - names the caller's SELinux domain may not set. The shell domain may set debug.*,
 *   log.tag*, persist.log.tag*, persist.debug.* (userdebug) and the adb service properties
 *   (system/sepolicy private/shell.te set_prop(shell, debug_prop / log_tag_prop /
 *   persist_debug_prop / shell_prop)); root (su) may set anything; apps nothing.
 * A refusal prints `Failed to set property 'NAME' to 'VALUE'.\nSee dmesg for error reason.`
 */
import type { Command } from '../../types.js';
import { isAppUid } from '../../fs/android-ids.js';

const PROP_VALUE_MAX = 92;
const SHELL_SETTABLE = [/^debug\./, /^log\.tag/, /^persist\.log\.tag/, /^persist\.debug\./, /^service\.adb\.(root|tcp\.port)$/, /^persist\.traced\.enable$/, /^persist\.heapprofd\.enable$/, /^persist\.sys\.usb\.config$/];

export const setprop: Command = async (ctx) => {
  if (ctx.argv.length !== 3) {
    await ctx.stdout.write('usage: setprop NAME VALUE\n\nSets an Android system property.\n');
    return 1;
  }
  const name = ctx.argv[1]!;
  const value = ctx.argv[2]!;
  if (name.startsWith('.') || name.endsWith('.')) {
    await ctx.stderr.write("Property names must not start or end with a '.'\n");
    return 1;
  }
  if (name.includes('..')) {
    await ctx.stderr.write("'..' is not allowed in a property name\n");
    return 1;
  }
  for (const c of name) {
    if (!/[A-Za-z0-9]/.test(c) && !':@_.-'.includes(c)) {
      await ctx.stderr.write(`Invalid character '${c}' in name '${name}'\n`);
      return 1;
    }
  }
  if (Buffer.byteLength(value) >= PROP_VALUE_MAX && !name.startsWith('ro.')) {
    await ctx.stderr.write(`Value '${value}' is too long, ${Buffer.byteLength(value)} bytes vs a max of ${PROP_VALUE_MAX}\n`);
    return 1;
  }
  const debuggable = ctx.device.props.get('ro.debuggable') === '1';
  const readOnlyTaken = name.startsWith('ro.') && ctx.device.props.has(name);
  const allowed =
    ctx.uid === 0 ||
    (ctx.uid === 2000 && SHELL_SETTABLE.some((re) => re.test(name)) && (debuggable || !name.startsWith('persist.debug.'))) ||
    (ctx.uid === 1000 && !isAppUid(ctx.uid));
  if (readOnlyTaken || !allowed) {
    await ctx.stderr.write(`Failed to set property '${name}' to '${value}'.\nSee dmesg for error reason.\n`);
    return 1;
  }
  ctx.device.props.set(name, value);
  return 0;
};
