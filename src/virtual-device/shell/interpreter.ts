/**
 * Executes parsed sh: lists, and-or lists, pipelines (all stages run concurrently, joined by
 * pipes with backpressure), compound commands, redirections, builtins, functions and the
 * device's binaries (the CommandRegistry).
 *
 * Messages and statuses follow mksh R59c (exec.c comexec(), iosetup()):
 *   `NAME: inaccessible or not found` → 127, `NAME: can't execute: Permission denied` → 126,
 *   `can't create PATH: ERR` / `can't open PATH: ERR` → 1, each after the shell's name
 *   (`/system/bin/sh: ` for adbd's `sh -c`, `sh: ` for a nested `sh -c`).
 * A command killed by signal N reports 128+N (SIGPIPE 141 when its reader went away).
 */
import type { Command, InputSource, OutputSink, ShellIo } from '../types.js';
import type { AndOr, CommandNode, CompoundCommand, ListNode, Pipeline, Redir, SimpleCommand, Word } from './ast.js';
import type { ChildShellOptions, ShellHost, ToyboxContext } from './context.js';
import { Parser, ShellSyntaxError } from './parser.js';
import { ShellState, type ShellVar } from './shell-state.js';
import { Expander, ExpansionError } from './expand.js';
import { BrokenPipeError, CaptureSink, InputReader, Pipe, discardSink, toBuffer } from './streams.js';
import { matchPattern } from './glob.js';
import { SIGNALS, isIgnoredByDefault, type ProcessTable } from './process-table.js';
import { resolveAndroidPath, basenameOf, dirnameOf } from '../fs/android-path.js';
import { FsError, isFsError } from '../fs/fs-error.js';
import { isDirMode } from '../fs/file-mode.js';
import { BUILTINS, SPECIAL_BUILTINS } from './builtins.js';
import { FunctionReturn, LoopControl, ShellAborted, ShellExit } from './control-flow.js';

export type Fd = { kind: 'in'; reader: InputReader } | { kind: 'out'; sink: OutputSink } | { kind: 'closed' };

const EMPTY_INPUT = InputReader.empty();

/** The file descriptors of a command (0, 1, 2, and any N the script opens). */
export class Fds {
  private readonly map: Map<number, Fd>;

  constructor(entries?: Iterable<readonly [number, Fd]>) {
    this.map = new Map(entries);
  }

  static fromIo(io: { stdin: InputReader; stdout: OutputSink; stderr: OutputSink }): Fds {
    return new Fds([
      [0, { kind: 'in', reader: io.stdin }],
      [1, { kind: 'out', sink: io.stdout }],
      [2, { kind: 'out', sink: io.stderr }],
    ]);
  }

  clone(): Fds {
    return new Fds(this.map);
  }

  get(n: number): Fd | undefined {
    return this.map.get(n);
  }

  set(n: number, fd: Fd): void {
    this.map.set(n, fd);
  }

  entries(): [number, Fd][] {
    return [...this.map.entries()];
  }

  input(n = 0): InputReader {
    const fd = this.map.get(n);
    return fd?.kind === 'in' ? fd.reader : EMPTY_INPUT;
  }

  output(n: number): OutputSink {
    const fd = this.map.get(n);
    return fd?.kind === 'out' ? fd.sink : discardSink;
  }
}

/** What all shells of one session share. */
export interface SessionEnv {
  readonly host: ShellHost;
  readonly signal: AbortSignal;
  readonly processes: ProcessTable;
  /** Background jobs still running (the session ends after them, as adbd waits for EOF). */
  readonly jobs: Set<Promise<number>>;
}

const SYSTEM_BIN_DIRS = ['/system/bin', '/system/xbin', '/vendor/bin', '/product/bin', '/system_ext/bin', '/odm/bin', '/apex/com.android.runtime/bin', '/apex/com.android.art/bin'];

export class Interpreter {
  readonly expander: Expander;
  /** Status of the last command substitution (the status of an assignment-only command). */
  private substitutionStatus: number | undefined;
  /** > 0 while evaluating a condition (if/while tests, non-final && || members): no errexit. */
  private conditionDepth = 0;
  /** Files opened by `exec N>file`, closed when the shell ends. */
  private readonly permanentCleanups: (() => Promise<void>)[] = [];

  constructor(
    readonly session: SessionEnv,
    readonly state: ShellState,
  ) {
    const startedMs = session.host.clock.now();
    this.expander = new Expander({
      state,
      fs: session.host.fs,
      commandSubstitution: (body) => this.commandSubstitution(body),
      now: () => session.host.clock.now(),
      startedMs,
    });
  }

  get shellName(): string {
    return this.state.arg0;
  }

  get host(): ShellHost {
    return this.session.host;
  }

  // ------------------------------------------------------------------ scripts

  /** Runs script text line by line; returns the shell's exit status. */
  async runScript(src: string, fds: Fds): Promise<number> {
    const parser = new Parser(src);
    try {
      for (;;) {
        this.checkAbort();
        let list: ListNode | null;
        try {
          list = parser.parseLine();
        } catch (e) {
          if (e instanceof ShellSyntaxError) {
            await this.error(fds, e.message);
            this.state.lastStatus = 1;
            throw new ShellExit(1);
          }
          throw e;
        }
        if (list === null) break;
        await this.execList(list, fds);
      }
      return this.state.lastStatus;
    } catch (e) {
      if (e instanceof ShellExit) return e.status;
      if (e instanceof LoopControl) return this.state.lastStatus;
      if (e instanceof FunctionReturn) return e.status;
      throw e;
    } finally {
      await this.runExitTrap(fds);
      for (const cleanup of this.permanentCleanups.splice(0)) await cleanup();
    }
  }

  /**
   * Reads commands from `input` as they arrive and runs each complete line (sh reading a
   * script from stdin, or an interactive shell when `prompt` is given).
   */
  async runFromInput(input: InputReader, fds: Fds, prompt?: () => string): Promise<number> {
    let pending = '';
    const out = fds.output(2);
    try {
      for (;;) {
        this.checkAbort();
        if (prompt !== undefined) await out.write(pending === '' ? prompt() : '> ');
        const line = await input.readLine();
        if (line === null) {
          if (pending.trim() !== '') {
            const result = await this.runChunk(pending, fds);
            if (typeof result === 'object') return result.status;
          }
          return this.state.lastStatus;
        }
        pending += `${line}\n`;
        const result = await this.runChunk(pending, fds, true);
        if (result === 'incomplete') continue;
        pending = '';
        // `exit` ends any shell; a syntax error ends only a non-interactive one.
        if (typeof result === 'object' && (result.kind === 'exit' || prompt === undefined)) return result.status;
      }
    } catch (e) {
      if (e instanceof ShellExit) return e.status;
      throw e;
    } finally {
      await this.runExitTrap(fds);
      for (const cleanup of this.permanentCleanups.splice(0)) await cleanup();
    }
  }

  /** Runs complete lines of `src`; 'incomplete' when more input is needed; a status on exit or syntax error. */
  private async runChunk(src: string, fds: Fds, allowIncomplete = false): Promise<{ kind: 'exit' | 'syntax'; status: number } | 'incomplete' | undefined> {
    const parser = new Parser(src);
    const lists: ListNode[] = [];
    try {
      for (;;) {
        const list = parser.parseLine();
        if (list === null) break;
        lists.push(list);
      }
    } catch (e) {
      if (e instanceof ShellSyntaxError) {
        const incomplete = /unexpected EOF|unmatched|no closing quote|unclosed/.test(e.message);
        if (allowIncomplete && incomplete) return 'incomplete';
        await this.error(fds, e.message);
        this.state.lastStatus = 1;
        return { kind: 'syntax', status: 1 };
      }
      throw e;
    }
    for (const list of lists) {
      try {
        await this.execList(list, fds);
      } catch (e) {
        if (e instanceof ShellExit) return { kind: 'exit', status: e.status };
        if (e instanceof LoopControl || e instanceof FunctionReturn) continue;
        throw e;
      }
    }
    return undefined;
  }

  private async runExitTrap(fds: Fds): Promise<void> {
    const trap = this.state.exitTrap;
    if (trap === undefined) return;
    this.state.exitTrap = undefined;
    const status = this.state.lastStatus;
    try {
      await this.evalString(trap, fds);
    } catch (e) {
      if (!(e instanceof ShellExit || e instanceof LoopControl || e instanceof FunctionReturn)) throw e;
    }
    this.state.lastStatus = status;
  }

  /** `eval`, `.`: runs text in this shell. */
  async evalString(src: string, fds: Fds): Promise<number> {
    const parser = new Parser(src);
    for (;;) {
      let list: ListNode | null;
      try {
        list = parser.parseLine();
      } catch (e) {
        if (e instanceof ShellSyntaxError) {
          await this.error(fds, e.message);
          throw new ShellExit(1);
        }
        throw e;
      }
      if (list === null) break;
      await this.execList(list, fds);
    }
    return this.state.lastStatus;
  }

  // ------------------------------------------------------------------ lists

  async execList(list: ListNode, fds: Fds): Promise<number> {
    let status = this.state.lastStatus;
    for (const item of list.items) {
      this.checkAbort();
      if (item.background) {
        this.startBackground(item.andOr, fds);
        status = 0;
      } else {
        status = await this.execAndOr(item.andOr, fds);
      }
      this.state.lastStatus = status;
    }
    return status;
  }

  private startBackground(andOr: AndOr, fds: Fds): void {
    const bgFds = fds.clone();
    bgFds.set(0, { kind: 'in', reader: EMPTY_INPUT });
    const killer = new AbortController();
    let killedBy: number | undefined;
    const proc = this.session.processes.spawn({
      name: basenameOf(this.state.arg0),
      uid: this.state.uid,
      ppid: this.state.pid,
      onSignal: (sig) => {
        if (isIgnoredByDefault(sig)) return;
        killedBy = sig;
        killer.abort();
        proc.exit();
      },
    });
    this.state.lastBackgroundPid = proc.pid;
    const session: SessionEnv = { ...this.session, signal: AbortSignal.any([this.session.signal, killer.signal]) };
    const child = new Interpreter(session, this.state.clone());
    const job = (async (): Promise<number> => {
      try {
        return await child.execAndOr(andOr, bgFds);
      } catch (e) {
        if (e instanceof ShellExit) return e.status;
        if (e instanceof ShellAborted) return 128 + (killedBy ?? SIGNALS.HUP);
        if (e instanceof LoopControl || e instanceof FunctionReturn) return child.state.lastStatus;
        throw e;
      } finally {
        proc.exit();
      }
    })();
    this.session.jobs.add(job);
    void job.finally(() => this.session.jobs.delete(job)).catch(() => undefined);
  }

  async execAndOr(andOr: AndOr, fds: Fds): Promise<number> {
    const hasRest = andOr.rest.length > 0;
    if (hasRest) this.conditionDepth++;
    let status: number;
    try {
      status = await this.execPipeline(andOr.first, fds);
    } finally {
      if (hasRest) this.conditionDepth--;
    }
    for (let i = 0; i < andOr.rest.length; i++) {
      const { op, pipeline } = andOr.rest[i]!;
      this.state.lastStatus = status;
      if ((op === '&&' && status !== 0) || (op === '||' && status === 0)) continue;
      const last = i === andOr.rest.length - 1;
      if (!last) this.conditionDepth++;
      try {
        status = await this.execPipeline(pipeline, fds);
      } finally {
        if (!last) this.conditionDepth--;
      }
    }
    return status;
  }

  private async execPipeline(pipeline: Pipeline, fds: Fds): Promise<number> {
    let status: number;
    if (pipeline.commands.length === 1) {
      if (pipeline.negate) this.conditionDepth++;
      try {
        status = await this.execCommand(pipeline.commands[0]!, fds);
      } finally {
        if (pipeline.negate) this.conditionDepth--;
      }
    } else {
      status = await this.execMultiPipeline(pipeline.commands, fds);
    }
    if (pipeline.negate) status = status === 0 ? 1 : 0;
    this.state.lastStatus = status;
    if (status !== 0 && this.state.errexit && this.conditionDepth === 0 && !pipeline.negate) throw new ShellExit(status);
    return status;
  }

  private async execMultiPipeline(commands: readonly CommandNode[], fds: Fds): Promise<number> {
    const pipes = commands.slice(1).map(() => new Pipe(this.session.signal));
    const runs = commands.map(async (cmd, i) => {
      const stageFds = fds.clone();
      const input = i > 0 ? pipes[i - 1]! : undefined;
      const output = i < commands.length - 1 ? pipes[i]! : undefined;
      if (input !== undefined) stageFds.set(0, { kind: 'in', reader: new InputReader(input.reader) });
      if (output !== undefined) stageFds.set(1, { kind: 'out', sink: output.writer });
      const child = this.subshell();
      try {
        return await child.execCommand(cmd, stageFds);
      } catch (e) {
        if (e instanceof ShellExit) return e.status;
        if (e instanceof BrokenPipeError) return 128 + SIGNALS.PIPE;
        if (e instanceof LoopControl || e instanceof FunctionReturn) return child.state.lastStatus;
        throw e;
      } finally {
        output?.writer.close();
        input?.reader.close();
      }
    });
    const statuses = await Promise.all(runs);
    for (const p of pipes) p.dispose();
    if (this.state.pipefail) return [...statuses].reverse().find((s) => s !== 0) ?? 0;
    return statuses.at(-1) ?? 0;
  }

  async execCommand(cmd: CommandNode, fds: Fds): Promise<number> {
    this.checkAbort();
    this.currentFds = fds;
    const status = cmd.type === 'simple' ? await this.execSimple(cmd, fds) : await this.execCompound(cmd, fds);
    this.state.lastStatus = status;
    return status;
  }

  private async execCompound(cmd: CompoundCommand, fds: Fds): Promise<number> {
    if (cmd.type === 'funcdef') {
      this.state.functions.set(cmd.name, cmd.body);
      return 0;
    }
    const redirected = await this.applyRedirs(cmd.redirs, fds);
    if (redirected === undefined) return 1;
    try {
      return await this.execCompoundBody(cmd, redirected.fds);
    } finally {
      await redirected.cleanup();
    }
  }

  private async execCompoundBody(cmd: Exclude<CompoundCommand, { type: 'funcdef' }>, fds: Fds): Promise<number> {
    switch (cmd.type) {
      case 'group':
        return this.execList(cmd.body, fds);
      case 'subshell': {
        const child = this.subshell();
        try {
          return await child.execList(cmd.body, fds);
        } catch (e) {
          if (e instanceof ShellExit) return e.status;
          if (e instanceof LoopControl || e instanceof FunctionReturn) return child.state.lastStatus;
          throw e;
        }
      }
      case 'if': {
        for (const clause of cmd.clauses) {
          const cond = await this.condition(clause.cond, fds);
          if (cond === 0) return this.execList(clause.body, fds);
        }
        if (cmd.elseBody !== undefined) return this.execList(cmd.elseBody, fds);
        return 0;
      }
      case 'while': {
        let status = 0;
        for (;;) {
          this.checkAbort();
          const cond = await this.condition(cmd.cond, fds);
          if ((cond === 0) === cmd.until) break;
          try {
            status = await this.execList(cmd.body, fds);
          } catch (e) {
            if (e instanceof LoopControl) {
              if (e.levels > 1) {
                e.levels--;
                throw e;
              }
              if (e.kind === 'break') break;
              continue;
            }
            throw e;
          }
          // Yield to the event loop so a tight loop cannot starve I/O and aborts.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        return status;
      }
      case 'for': {
        const items = cmd.items === undefined ? [...this.state.positional] : await this.expandWords(cmd.items);
        let status = 0;
        for (const item of items) {
          this.checkAbort();
          if (!this.state.set(cmd.name, item)) {
            await this.error(fds, `${cmd.name}: is read only`);
            return 1;
          }
          try {
            status = await this.execList(cmd.body, fds);
          } catch (e) {
            if (e instanceof LoopControl) {
              if (e.levels > 1) {
                e.levels--;
                throw e;
              }
              if (e.kind === 'break') break;
              continue;
            }
            throw e;
          }
        }
        return status;
      }
      case 'case': {
        const word = await this.expander.single(cmd.word);
        for (const item of cmd.items) {
          for (const p of item.patterns) {
            const pattern = await this.expander.pattern(p);
            if (matchPattern(pattern, word)) return item.body === undefined ? 0 : this.execList(item.body, fds);
          }
        }
        return 0;
      }
      default: {
        const unreachable: never = cmd;
        throw new Error(`unknown compound command ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private async condition(list: ListNode, fds: Fds): Promise<number> {
    this.conditionDepth++;
    try {
      return await this.execList(list, fds);
    } finally {
      this.conditionDepth--;
    }
  }

  // ------------------------------------------------------------------ simple commands

  private async execSimple(cmd: SimpleCommand, fds: Fds): Promise<number> {
    this.substitutionStatus = undefined;
    let argv: string[];
    const assigns: { name: string; value: string }[] = [];
    try {
      argv = await this.expandWords(cmd.words);
      for (const a of cmd.assigns) assigns.push({ name: a.name, value: await this.expander.single(a.value) });
    } catch (e) {
      if (e instanceof ExpansionError) {
        await this.error(fds, e.message);
        throw new ShellExit(1);
      }
      throw e;
    }

    if (argv.length === 0) {
      for (const a of assigns) {
        if (!this.state.set(a.name, a.value)) {
          await this.error(fds, `${a.name}: is read only`);
          return 1;
        }
      }
      const redirected = await this.applyRedirs(cmd.redirs, fds);
      if (redirected === undefined) return 1;
      await redirected.cleanup();
      return this.substitutionStatus ?? 0;
    }

    const name = argv[0]!;
    const special = SPECIAL_BUILTINS.get(name);
    const redirected = await this.applyRedirs(cmd.redirs, fds);
    if (redirected === undefined) return 1;
    let keepRedirections = false;
    try {
      if (special !== undefined) {
        for (const a of assigns) this.state.set(a.name, a.value);
        if (name === 'exec' && argv.length === 1) {
          // `exec 2>/dev/null`: the redirections stay for the rest of the shell.
          for (const [n, fd] of redirected.fds.entries()) fds.set(n, fd);
          keepRedirections = true;
          this.permanentCleanups.push(redirected.cleanup);
          return 0;
        }
        return await special(this, argv, redirected.fds);
      }
      const fn = this.state.functions.get(name);
      if (fn !== undefined) {
        for (const a of assigns) this.state.set(a.name, a.value);
        return await this.callFunction(fn, argv, redirected.fds);
      }
      const builtin = BUILTINS.get(name);
      if (builtin !== undefined) return await this.withTemporaryVars(assigns, () => builtin(this, argv, redirected.fds));
      return await this.runExternal(argv, assigns, redirected.fds);
    } finally {
      if (!keepRedirections) await redirected.cleanup();
    }
  }

  /** Runs an argument vector through the lookup order (exec, command). */
  async runArgv(argv: readonly string[], fds: Fds, options: { skipFunctions?: boolean } = {}): Promise<number> {
    const name = argv[0];
    if (name === undefined) return 0;
    const special = SPECIAL_BUILTINS.get(name);
    if (special !== undefined) return special(this, argv, fds);
    const fn = options.skipFunctions === true ? undefined : this.state.functions.get(name);
    if (fn !== undefined) return this.callFunction(fn, argv, fds);
    const builtin = BUILTINS.get(name);
    if (builtin !== undefined) return builtin(this, argv, fds);
    return this.runExternal(argv, [], fds);
  }

  private async withTemporaryVars<T>(assigns: readonly { name: string; value: string }[], fn: () => Promise<T>): Promise<T> {
    if (assigns.length === 0) return fn();
    const saved = new Map<string, ShellVar | undefined>();
    for (const a of assigns) {
      saved.set(a.name, this.state.vars.get(a.name));
      this.state.set(a.name, a.value);
    }
    try {
      return await fn();
    } finally {
      for (const [n, v] of saved) {
        if (v === undefined) this.state.vars.delete(n);
        else this.state.vars.set(n, v);
      }
    }
  }

  async callFunction(body: CommandNode, argv: readonly string[], fds: Fds): Promise<number> {
    const savedPositional = this.state.positional;
    this.state.positional = argv.slice(1);
    try {
      return await this.execCommand(body, fds);
    } catch (e) {
      if (e instanceof FunctionReturn) return e.status;
      throw e;
    } finally {
      this.state.positional = savedPositional;
    }
  }

  /** Runs a binary (not a builtin or function): the registry, a script file, or 127. */
  async runExternal(argv: readonly string[], assigns: readonly { name: string; value: string }[], fds: Fds): Promise<number> {
    const name = argv[0]!;
    const found = await this.lookupCommand(name);
    switch (found.kind) {
      case 'notfound':
        await this.error(fds, `${name}: inaccessible or not found`);
        return 127;
      case 'noexec':
        await this.error(fds, `${name}: can't execute: ${found.error}`);
        return 126;
      case 'script': {
        let text: string;
        try {
          text = (await this.host.fs.readFile(found.path, this.state.uid)).toString('utf8');
        } catch (e) {
          if (isFsError(e)) {
            await this.error(fds, `${name}: can't execute: ${e.message}`);
            return 126;
          }
          throw e;
        }
        return this.runChildShell({ script: text, arg0: name, args: argv.slice(1), env: this.state.environment(assigns) }, fds);
      }
      case 'registered':
        return this.runRegistered(found.command, argv, this.state.environment(assigns), fds);
      default: {
        const unreachable: never = found;
        throw new Error(`unknown lookup result ${JSON.stringify(unreachable)}`);
      }
    }
  }

  async lookupCommand(
    name: string,
  ): Promise<
    | { kind: 'registered'; command: Command; path: string }
    | { kind: 'script'; path: string }
    | { kind: 'notfound' }
    | { kind: 'noexec'; error: string }
  > {
    const commands = this.host.commands;
    if (!name.includes('/')) {
      const command = commands.get(name);
      if (command !== undefined) return { kind: 'registered', command, path: `/system/bin/${name}` };
      // PATH directories outside the system image (a script pushed to /data/local/tmp).
      for (const dir of (this.state.get('PATH') ?? '').split(':')) {
        if (dir === '' || SYSTEM_BIN_DIRS.includes(dir)) continue;
        const candidate = resolveAndroidPath(`${dir}/${name}`, this.state.cwd);
        if (await this.isExecutableFile(candidate)) return { kind: 'script', path: candidate };
      }
      return { kind: 'notfound' };
    }
    const abs = resolveAndroidPath(name, this.state.cwd);
    const dir = dirnameOf(abs);
    const base = basenameOf(abs);
    let canonicalDir = dir;
    try {
      canonicalDir = await this.host.fs.realpath(dir, 0);
    } catch {
      // missing directory: not found below
    }
    if (SYSTEM_BIN_DIRS.includes(canonicalDir)) {
      const command = commands.get(base);
      if (command !== undefined) return { kind: 'registered', command, path: `${canonicalDir}/${base}` };
    }
    let st;
    try {
      st = await this.host.fs.stat(abs, this.state.uid);
    } catch (e) {
      if (isFsError(e, 'ENOENT') || isFsError(e, 'ENOTDIR')) return { kind: 'notfound' };
      if (e instanceof FsError) return { kind: 'noexec', error: e.message };
      throw e;
    }
    if (isDirMode(st.mode) || !(await this.host.fs.access(abs, this.state.uid, 1))) return { kind: 'noexec', error: 'Permission denied' };
    return { kind: 'script', path: abs };
  }

  private async isExecutableFile(path: string): Promise<boolean> {
    try {
      const st = await this.host.fs.stat(path, this.state.uid);
      return !isDirMode(st.mode) && (await this.host.fs.access(path, this.state.uid, 1));
    } catch {
      return false;
    }
  }

  private async runRegistered(
    command: Command,
    argv: readonly string[],
    env: Map<string, string>,
    fds: Fds,
  ): Promise<number> {
    const killer = new AbortController();
    let killedBy: number | undefined;
    const proc = this.session.processes.spawn({
      name: basenameOf(argv[0]!),
      uid: this.state.uid,
      ppid: this.state.pid,
      args: argv,
      onSignal: (sig) => {
        if (isIgnoredByDefault(sig)) return;
        killedBy = sig;
        killer.abort();
        proc.exit();
      },
    });
    const signal = AbortSignal.any([this.session.signal, killer.signal]);
    const stdinReader = fds.input(0);
    const ctx = this.makeContext({ argv, env, fds, signal, pid: proc.pid, stdin: stdinReader.view() });
    let status: number;
    try {
      status = await command(ctx);
    } catch (e) {
      if (e instanceof BrokenPipeError) status = 128 + SIGNALS.PIPE;
      else if (signal.aborted) status = 128 + (killedBy ?? SIGNALS.HUP);
      else if (e instanceof ShellExit) status = e.status;
      else {
        const message = e instanceof Error ? e.message : String(e);
        await this.safeWrite(fds.output(2), `${basenameOf(argv[0]!)}: ${message}\n`);
        status = 1;
      }
    } finally {
      proc.exit();
    }
    if (killedBy !== undefined) status = 128 + killedBy;
    return status & 0xff;
  }

  /** The context a binary runs with. */
  makeContext(options: { argv: readonly string[]; env: Map<string, string>; fds: Fds; signal: AbortSignal; pid: number; stdin: InputSource }): ToyboxContext {
    const { argv, env, fds, signal, pid, stdin } = options;
    const host = this.host;
    const state = this.state;
    const stdout = fds.output(1);
    const stderr = fds.output(2);
    const runShell = (o: ChildShellOptions): Promise<number> => {
      const io = o.io ?? {};
      const childFds = new Fds([
        [0, { kind: 'in', reader: io.stdin !== undefined ? new InputReader(io.stdin) : fds.input(0) }],
        [1, { kind: 'out', sink: io.stdout ?? stdout }],
        [2, { kind: 'out', sink: io.stderr ?? stderr }],
      ]);
      const childEnv = new Map(env);
      return this.runChildShell(
        {
          script: o.script,
          arg0: o.arg0,
          args: o.args ?? [],
          env: childEnv,
          uid: o.uid ?? state.uid,
          cwd: o.cwd ?? state.cwd,
          signal: io.signal ?? signal,
          fromStdin: o.fromStdin === true,
          interactive: o.interactive === true,
        },
        childFds,
      );
    };
    const runCommand = async (cmdArgv: readonly string[], o: { env?: Map<string, string>; io?: Partial<ShellIo> } = {}): Promise<number | undefined> => {
      const name = cmdArgv[0];
      if (name === undefined) return 0;
      const found = await this.lookupCommand(name);
      const io = o.io ?? {};
      const childFds = new Fds([
        [0, { kind: 'in', reader: io.stdin !== undefined ? new InputReader(io.stdin) : fds.input(0) }],
        [1, { kind: 'out', sink: io.stdout ?? stdout }],
        [2, { kind: 'out', sink: io.stderr ?? stderr }],
      ]);
      switch (found.kind) {
        case 'notfound':
        case 'noexec':
          return undefined;
        case 'script': {
          const text = (await host.fs.readFile(found.path, state.uid)).toString('utf8');
          return this.runChildShell({ script: text, arg0: name, args: cmdArgv.slice(1), env: o.env ?? env, signal }, childFds);
        }
        case 'registered':
          return this.runRegistered(found.command, cmdArgv, o.env ?? env, childFds);
        default: {
          const unreachable: never = found;
          throw new Error(`unknown lookup result ${JSON.stringify(unreachable)}`);
        }
      }
    };
    const ctx: ToyboxContext = {
      device: host,
      umask: state.umask,
      runCommand,
      host,
      fs: host.fs,
      argv,
      env,
      cwd: state.cwd,
      uid: state.uid,
      stdin,
      stdout,
      stderr,
      signal,
      pid,
      shellName: state.arg0,
      runShell,
      runNested: (line: string, o: { uid?: number; cwd?: string; io?: Partial<ShellIo> } = {}) =>
        runShell({ script: line, arg0: '/system/bin/sh', ...(o.uid === undefined ? {} : { uid: o.uid }), ...(o.cwd === undefined ? {} : { cwd: o.cwd }), ...(o.io === undefined ? {} : { io: o.io }) }),
    };
    return ctx;
  }

  /** A new shell process (`sh -c`, a script file, run-as): fresh state from the environment. */
  async runChildShell(
    o: {
      script: string;
      arg0: string;
      args: readonly string[];
      env: Map<string, string>;
      uid?: number;
      cwd?: string;
      signal?: AbortSignal;
      fromStdin?: boolean;
      interactive?: boolean;
    },
    fds: Fds,
  ): Promise<number> {
    const uid = o.uid ?? this.state.uid;
    const proc = this.session.processes.spawn({ name: basenameOf(o.arg0), uid, ppid: this.state.pid, args: [o.arg0, ...(o.fromStdin === true ? [] : ['-c', o.script])] });
    const vars = new Map<string, ShellVar>();
    for (const [k, v] of o.env) vars.set(k, { value: v, exported: true, readonly: false });
    const state = new ShellState({ vars, positional: [...o.args], arg0: o.arg0, cwd: o.cwd ?? this.state.cwd, uid, pid: proc.pid });
    state.set('PWD', state.cwd);
    const session: SessionEnv = o.signal === undefined || o.signal === this.session.signal ? this.session : { ...this.session, signal: o.signal };
    const child = new Interpreter(session, state);
    try {
      if (o.fromStdin === true) {
        const prompt = o.interactive === true ? () => `${state.get('HOSTNAME') ?? 'localhost'}:${state.cwd} ${uid === 0 ? '#' : '$'} ` : undefined;
        return await child.runFromInput(fds.input(0), fds, prompt);
      }
      return await child.runScript(o.script, fds);
    } catch (e) {
      if (e instanceof ShellAborted) return 128 + SIGNALS.HUP;
      throw e;
    } finally {
      proc.exit();
    }
  }

  // ------------------------------------------------------------------ helpers

  /** A subshell: a copy of this shell's state in the same process ($$ unchanged). */
  subshell(): Interpreter {
    return new Interpreter(this.session, this.state.clone());
  }

  async expandWords(words: readonly Word[]): Promise<string[]> {
    return this.expander.words(words);
  }

  private async commandSubstitution(body: ListNode): Promise<string> {
    const capture = new CaptureSink();
    const child = this.subshell();
    // The substitution's stderr and stdin are the shell's own; only stdout is captured.
    const fds = this.currentFds?.clone() ?? new Fds();
    fds.set(1, { kind: 'out', sink: capture });
    let status: number;
    try {
      status = await child.execList(body, fds);
    } catch (e) {
      if (e instanceof ShellExit) status = e.status;
      else if (e instanceof LoopControl || e instanceof FunctionReturn) status = child.state.lastStatus;
      else throw e;
    }
    this.substitutionStatus = status;
    this.state.lastStatus = status;
    return capture.text();
  }

  /** The fds of the command being expanded (so `$(cmd)` writes errors where the shell does). */
  currentFds: Fds | undefined;

  /** Applies redirections to a copy of `fds`; undefined after printing an error. */
  async applyRedirs(redirs: readonly Redir[], fds: Fds): Promise<{ fds: Fds; cleanup: () => Promise<void> } | undefined> {
    if (redirs.length === 0) return { fds, cleanup: () => Promise.resolve() };
    const out = fds.clone();
    const cleanups: (() => Promise<void>)[] = [];
    const cleanup = async (): Promise<void> => {
      for (const c of cleanups.splice(0).reverse()) await c();
    };
    try {
      for (const r of redirs) {
        const ok = await this.applyRedir(r, out, cleanups);
        if (!ok) {
          await cleanup();
          return undefined;
        }
      }
    } catch (e) {
      await cleanup();
      if (e instanceof ExpansionError) {
        await this.error(fds, e.message);
        throw new ShellExit(1);
      }
      throw e;
    }
    return { fds: out, cleanup };
  }

  private async applyRedir(r: Redir, fds: Fds, cleanups: (() => Promise<void>)[]): Promise<boolean> {
    const uid = this.state.uid;
    if (r.op === '<<' || r.op === '<<-') {
      const body = r.heredoc === undefined ? '' : r.heredoc.literal ? r.heredoc.body.raw : await this.expander.single(r.heredoc.body);
      fds.set(r.fd ?? 0, { kind: 'in', reader: new InputReader(singleChunk(body)) });
      return true;
    }
    const target = await this.expander.single(r.target);
    if (r.op === '>&' || r.op === '<&') {
      const fdNum = r.fd ?? (r.op === '>&' ? 1 : 0);
      if (target === '-') {
        fds.set(fdNum, { kind: 'closed' });
        return true;
      }
      if (/^\d+$/.test(target)) {
        const from = fds.get(Number(target));
        if (from === undefined || from.kind === 'closed') {
          await this.error(fds, `${r.raw}${target}: bad file descriptor`);
          return false;
        }
        fds.set(fdNum, from);
        return true;
      }
      if (r.op === '<&') {
        await this.error(fds, `${r.raw}${target}: bad file descriptor`);
        return false;
      }
      // `>&file` is `>file 2>&1` in mksh.
      const sink = await this.openOutput(target, false, uid, fds, cleanups);
      if (sink === undefined) return false;
      fds.set(1, { kind: 'out', sink });
      fds.set(2, { kind: 'out', sink });
      return true;
    }
    const special = specialDevice(target, fds);
    if (r.op === '<' || r.op === '<>') {
      if (special !== undefined) {
        fds.set(r.fd ?? 0, special);
        return true;
      }
      try {
        const source = await this.host.fs.openRead(resolveAndroidPath(target, this.state.cwd), uid);
        const reader = new InputReader(source);
        cleanups.push(() => reader.close());
        fds.set(r.fd ?? 0, { kind: 'in', reader });
        return true;
      } catch (e) {
        if (isFsError(e)) {
          await this.error(fds, `can't open ${target}: ${e.message}`);
          return false;
        }
        throw e;
      }
    }
    if (special !== undefined && special.kind === 'out') {
      fds.set(r.op === '&>' ? 1 : (r.fd ?? 1), special);
      if (r.op === '&>') fds.set(2, special);
      return true;
    }
    const sink = await this.openOutput(target, r.op === '>>', uid, fds, cleanups);
    if (sink === undefined) return false;
    if (r.op === '&>') {
      fds.set(1, { kind: 'out', sink });
      fds.set(2, { kind: 'out', sink });
    } else {
      fds.set(r.fd ?? 1, { kind: 'out', sink });
    }
    return true;
  }

  private async openOutput(target: string, append: boolean, uid: number, fds: Fds, cleanups: (() => Promise<void>)[]): Promise<OutputSink | undefined> {
    try {
      const writer = await this.host.fs.openWrite(resolveAndroidPath(target, this.state.cwd), uid, { mode: 0o666 & ~this.state.umask, append });
      cleanups.push(() => writer.close());
      return { write: (data) => writer.write(toBuffer(data)) };
    } catch (e) {
      if (isFsError(e)) {
        await this.error(fds, `can't create ${target}: ${e.message}`);
        return undefined;
      }
      throw e;
    }
  }

  /** Prints `<shell>: message` on the command's stderr. */
  async error(fds: Fds, message: string): Promise<void> {
    await this.safeWrite(fds.output(2), `${this.shellName}: ${message}\n`);
  }

  async safeWrite(sink: OutputSink, text: string): Promise<void> {
    try {
      await sink.write(text);
    } catch (e) {
      if (!(e instanceof BrokenPipeError)) throw e;
    }
  }

  checkAbort(): void {
    if (this.session.signal.aborted) throw new ShellAborted();
  }
}

function singleChunk(text: string): InputSource {
  return {
    [Symbol.asyncIterator]: () => {
      let done = false;
      return {
        next: () => {
          if (done || text === '') return Promise.resolve({ done: true as const, value: undefined });
          done = true;
          return Promise.resolve({ done: false as const, value: Buffer.from(text, 'utf8') });
        },
      };
    },
  };
}

/** /dev/stdin, /dev/stdout, /dev/stderr and /proc/self/fd/N name the shell's own fds. */
function specialDevice(target: string, fds: Fds): Fd | undefined {
  const m = /^\/(?:dev\/(stdin|stdout|stderr)|proc\/self\/fd\/(\d+))$/.exec(target);
  if (m === null) return undefined;
  const n = m[1] === 'stdin' ? 0 : m[1] === 'stdout' ? 1 : m[1] === 'stderr' ? 2 : Number(m[2]);
  return fds.get(n);
}

/** Creates the state of a top-level shell (adbd's `sh -c`). */
export function createShellState(options: { env: Map<string, string>; arg0: string; uid: number; cwd: string; pid: number; positional?: string[] }): ShellState {
  const vars = new Map<string, ShellVar>();
  for (const [k, v] of options.env) vars.set(k, { value: v, exported: true, readonly: false });
  const state = new ShellState({ vars, positional: options.positional ?? [], arg0: options.arg0, cwd: options.cwd, uid: options.uid, pid: options.pid });
  state.set('PWD', options.cwd);
  return state;
}
