/**
 * The SELinux rules on signals that matter to the harness: what a command started by `run-as`
 * may send to the app's process.
 *
 * - From Android 10 (API 29) run-as switches to the `runas_app` domain before it exec()s the
 *   command: run-as.cpp calls selinux_android_setcontext(uid, 0, seinfo, pkgname), and
 *   seapp_contexts maps `fromRunAs=true` to `domain=runas_app` (aosp-mirror/platform_system_core
 *   run-as/run-as.cpp; platform_system_sepolicy private/seapp_contexts, android10-release).
 *   A shell process of an app's uid on this device is such a command: nothing else runs a shell
 *   as an app.
 * - `private/runas_app.te` allowed `runas_app untrusted_app_all:process { ptrace signal sigstop }`
 *   from Android 10 to 13; the AOSP commit "runas_app: allow sigkill of untrusted_app"
 *   (2023-01, bug 263379256, whose message quotes `avc: denied { sigkill } … scontext=u:r:runas_app
 *   tcontext=u:r:untrusted_app … permissive=0`) added `sigkill`, first released in Android 14
 *   (API 34): `{ ptrace sigkill signal sigstop }` (platform_system_sepolicy private/runas_app.te,
 *   msft-mirror-aosp/platform.system.sepolicy @6c9a13f3).
 * - SELinux's process class checks SIGKILL as `sigkill`, SIGSTOP as `sigstop`, SIGCHLD as
 *   `sigchld` and every other signal as `signal` (signal_to_av, torvalds/linux
 *   security/selinux/hooks.c). So on API 29–33 run-as may send SIGTERM, SIGQUIT, SIGABRT, …
 *   (and SIGSTOP) to the app, but not SIGKILL; the kernel answers EACCES.
 * - Before Android 10 run-as ran the command in the app's own domain, which may signal its own
 *   processes (DAC alone decides).
 *
 * The shell user (uid 2000) is refused before SELinux by DAC (EPERM: an unprivileged sender
 * needs the target's uid, kernel/signal.c kill_ok_by_cred), which ProcessTable.signal models.
 */
import type { SignalPolicy } from '../shell/process-table.js';
import { SIGNALS } from '../shell/process-table.js';
import { Uid } from '../types.js';

/** The domain of app processes forked by zygote for a third-party app. */
export const UNTRUSTED_APP_DOMAIN = 'untrusted_app';

/** First API level whose run-as runs in `runas_app`. */
export const RUNAS_APP_DOMAIN_SINCE_API = 29;
/** First API level whose `runas_app` may SIGKILL the app. */
export const RUNAS_APP_SIGKILL_SINCE_API = 34;

export function runAsSignalPolicy(apiLevel: number): SignalPolicy | undefined {
  if (apiLevel < RUNAS_APP_DOMAIN_SINCE_API || apiLevel >= RUNAS_APP_SIGKILL_SINCE_API) return undefined;
  return (sender, target, signal) => sender.uid >= Uid.appStart && target.domain === UNTRUSTED_APP_DOMAIN && signal === SIGNALS.KILL;
}
