/**
 * id, whoami, groups (toybox toys/posix/id.c 0.8.9):
 *   `uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),... context=u:r:shell:s0`
 * The groups are adbd's supplementary groups (packages/modules/adb daemon/main.cpp
 * drop_privileges()), sorted as the kernel keeps them; the gid is printed first and not
 * repeated. The SELinux context follows the domain: shell (adb shell), su (adb root),
 * runas_app with the app's MLS categories (run-as).
 */
import type { Command } from '../../types.js';
import { idFromName, idName, isAppUid, primaryGid, supplementaryGroups } from '../../fs/android-ids.js';
import { commandName, errorMsg, parseArgs } from './toybox.js';

/** The SELinux context a process of `uid` runs in. */
export function seContext(uid: number): string {
  if (uid === 0) return 'u:r:su:s0';
  if (uid === 2000) return 'u:r:shell:s0';
  if (isAppUid(uid)) {
    const appId = (uid % 100000) - 10000;
    const user = Math.floor(uid / 100000);
    return `u:r:runas_app:s0:c${appId & 0xff},c${256 + ((appId >> 8) & 0xff)},c${512 + (user & 0xff)},c${768 + ((user >> 8) & 0xff)}`;
  }
  if (uid === 1000) return 'u:r:system_app:s0';
  return 'u:r:shell:s0';
}

export const id: Command = async (ctx) => {
  const name = commandName(ctx);
  if (name === 'whoami' || name === 'logname') {
    await ctx.stdout.write(`${idName(ctx.uid)}\n`);
    return 0;
  }
  const args = await parseArgs(ctx, { flags: 'nGgruZ' });
  if (args === undefined) return 1;
  let uid = ctx.uid;
  const user = args.operands[0];
  if (user !== undefined) {
    const resolved = idFromName(user);
    if (resolved === undefined) {
      await errorMsg(ctx, `no such user '${user}'`);
      return 1;
    }
    uid = resolved;
  }
  const gid = primaryGid(uid);
  const groups = supplementaryGroups(uid, ctx.device.apiLevel);
  const show = (n: number): string => (args.has('n') ? idName(n) : String(n));
  if (name === 'groups') {
    await ctx.stdout.write(`${[gid, ...groups.filter((g) => g !== gid)].map(idName).join(' ')}\n`);
    return 0;
  }
  if (args.has('u')) {
    await ctx.stdout.write(`${show(uid)}\n`);
    return 0;
  }
  if (args.has('g')) {
    await ctx.stdout.write(`${show(gid)}\n`);
    return 0;
  }
  if (args.has('G')) {
    await ctx.stdout.write(`${[gid, ...groups.filter((g) => g !== gid)].map(show).join(' ')}\n`);
    return 0;
  }
  if (args.has('Z')) {
    await ctx.stdout.write(`${seContext(ctx.uid)}\n`);
    return 0;
  }
  const fmt = (n: number): string => `${n}(${idName(n)})`;
  const groupList = [gid, ...groups.filter((g) => g !== gid)].map(fmt).join(',');
  await ctx.stdout.write(`uid=${fmt(uid)} gid=${fmt(gid)} groups=${groupList} context=${seContext(ctx.uid)}\n`);
  return 0;
};
