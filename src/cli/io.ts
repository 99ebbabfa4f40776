/**
 * Where a command writes: its stdout and stderr, passed in so that specs capture them. Command
 * modules in ./commands/ import it from here, never from ./main.ts, which loads them.
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The process's own stdout and stderr. */
export const defaultIo: CliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};
