/**
 * AppOpsService's per-package modes as `appops set` records them (commands/appops.ts): op name
 * to mode string (`allow`, `ignore`, `deny`, `default`, `foreground` or a number), by package.
 * The model records modes; nothing on the device reads them.
 */
export class AppOpsService {
  private readonly modes = new Map<string, Map<string, string>>();

  setMode(pkg: string, op: string, mode: string): void {
    let ops = this.modes.get(pkg);
    if (ops === undefined) {
      ops = new Map();
      this.modes.set(pkg, ops);
    }
    ops.set(op, mode);
  }

  /** The modes set for pkg, in the order they were first set. */
  modesOf(pkg: string): ReadonlyMap<string, string> {
    return this.modes.get(pkg) ?? new Map();
  }
}
