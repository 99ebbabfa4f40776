/** The state of one shell process: variables, functions, positional parameters, options. */
import type { CommandNode } from './ast.js';

export interface ShellVar {
  value: string;
  exported: boolean;
  readonly: boolean;
}

export class ShellState {
  readonly vars: Map<string, ShellVar>;
  readonly functions: Map<string, CommandNode>;
  positional: string[];
  /** $0: the shell's name (also the prefix of its error messages). */
  arg0: string;
  lastStatus = 0;
  cwd: string;
  uid: number;
  /** $$ */
  readonly pid: number;
  /** $! */
  lastBackgroundPid: number | undefined;
  umask = 0;
  errexit = false;
  nounset = false;
  pipefail = false;
  /** Commands to run when the shell exits (`trap CMD EXIT`). */
  exitTrap: string | undefined;

  constructor(init: { vars: Map<string, ShellVar>; functions?: Map<string, CommandNode>; positional: string[]; arg0: string; cwd: string; uid: number; pid: number }) {
    this.vars = init.vars;
    this.functions = init.functions ?? new Map<string, CommandNode>();
    this.positional = init.positional;
    this.arg0 = init.arg0;
    this.cwd = init.cwd;
    this.uid = init.uid;
    this.pid = init.pid;
    this.lastBackgroundPid = undefined;
    this.exitTrap = undefined;
  }

  /** A subshell's copy: same values, independent from then on ($$ stays the parent's). */
  clone(): ShellState {
    const vars = new Map<string, ShellVar>();
    for (const [k, v] of this.vars) vars.set(k, { ...v });
    const copy = new ShellState({
      vars,
      functions: new Map(this.functions),
      positional: [...this.positional],
      arg0: this.arg0,
      cwd: this.cwd,
      uid: this.uid,
      pid: this.pid,
    });
    copy.lastStatus = this.lastStatus;
    copy.lastBackgroundPid = this.lastBackgroundPid;
    copy.umask = this.umask;
    copy.errexit = this.errexit;
    copy.nounset = this.nounset;
    copy.pipefail = this.pipefail;
    return copy;
  }

  get(name: string): string | undefined {
    return this.vars.get(name)?.value;
  }

  /** Sets a variable; false when it is read-only. */
  set(name: string, value: string, options: { export?: boolean } = {}): boolean {
    const existing = this.vars.get(name);
    if (existing?.readonly === true) return false;
    this.vars.set(name, { value, exported: options.export === true || existing?.exported === true, readonly: false });
    return true;
  }

  unset(name: string): boolean {
    const existing = this.vars.get(name);
    if (existing?.readonly === true) return false;
    this.vars.delete(name);
    return true;
  }

  /** The environment a command gets: exported variables plus `NAME=value` prefixes. */
  environment(extra: readonly { name: string; value: string }[] = []): Map<string, string> {
    const env = new Map<string, string>();
    for (const [k, v] of this.vars) if (v.exported) env.set(k, v.value);
    for (const { name, value } of extra) env.set(name, value);
    return env;
  }

  /** `$-`: the single-letter options in effect. */
  flags(): string {
    return `${this.errexit ? 'e' : ''}${this.nounset ? 'u' : ''}hc`;
  }
}
