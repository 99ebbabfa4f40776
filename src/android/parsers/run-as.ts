/**
 * run-as failures (aosp-mirror/platform_system_core `run-as/run-as.cpp` @145ac70b): printed via
 * error() as `run-as: <message>`: `unknown package: %s`, `package not an application: %s`,
 * `package not debuggable: %s`, `package has corrupt installation: %s`, and
 * `only 'shell' or 'root' users can run this program`.
 * A missing file read through `run-as PKG cat PATH` is toybox cat's
 * `cat: PATH: No such file or directory` (exit 1).
 */

export type RunAsFailure = 'not-debuggable' | 'unknown-package' | 'not-an-application' | 'corrupt-installation' | 'not-shell';

export function classifyRunAsError(stderr: string): RunAsFailure | null {
  if (/run-as: package not debuggable/.test(stderr)) return 'not-debuggable';
  if (/run-as: unknown package/.test(stderr)) return 'unknown-package';
  if (/run-as: package not an application/.test(stderr)) return 'not-an-application';
  if (/run-as: package has corrupt installation/.test(stderr)) return 'corrupt-installation';
  if (/run-as: only 'shell' or 'root' users/.test(stderr)) return 'not-shell';
  return null;
}

export function isNoSuchFile(stderr: string): boolean {
  return /No such file or directory/.test(stderr);
}
