/**
 * Where a command writes: its stdout and stderr, passed in so that specs capture them. Command
 * modules in ./commands/ import it from here, never from ./main.ts, which loads them.
 */
import { escapeControls } from '../text.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The process's own stdout and stderr. */
export const defaultIo: CliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/**
 * `io` with every control character of what is written shown escaped (src/text.ts
 * escapeControls): the one place where text from an app, a device or a file (notification tags
 * and titles, channel ids, capture lines, logcat, file names, errors quoting them) meets the
 * terminal. main() wraps the io of every command in it.
 */
export function terminalIo(io: CliIo): CliIo {
  return {
    stdout: (t) => io.stdout(escapeControls(t)),
    stderr: (t) => io.stderr(escapeControls(t)),
  };
}
