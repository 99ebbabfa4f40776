/** Non-local control flow inside the shell, carried as exceptions. */

/** `exit N` (or the end of a subshell). */
export class ShellExit extends Error {
  constructor(readonly status: number) {
    super(`exit ${status}`);
  }
}

/** `break N` / `continue N`. */
export class LoopControl extends Error {
  constructor(
    readonly kind: 'break' | 'continue',
    public levels: number,
  ) {
    super(kind);
  }
}

/** `return N` from a function or a sourced file. */
export class FunctionReturn extends Error {
  constructor(readonly status: number) {
    super(`return ${status}`);
  }
}

/** The session ended (the adb stream closed): everything stops. */
export class ShellAborted extends Error {
  constructor() {
    super('aborted');
  }
}
