/**
 * CLI wiring (DESIGN.md §9). The only place that turns outcomes into exit codes:
 * 0 every property verified, 1 a property was violated, 2 could not decide (usage or config
 * error, device or infrastructure failure, refused run). Command bodies live in
 * ./commands/<name>.ts and are loaded lazily, so `--help` answers at once and `check`/`lint`
 * never load adb, SQLite or WebDriver code.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { describeError, isDedupVerifyError } from '../errors.js';
import { VERSION } from '../version.js';

export const ExitCode = { Verified: 0, Violated: 1, Undecided: 2 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const defaultIo: CliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function intArg(name: string) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`${name} takes a whole number.`);
    return Number(value);
  };
}

export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('dedup-verify');
  program
    .description("Proves on an Android device that an app's periodic notifier misses nothing and repeats at most one item.")
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();

  program
    .command('run')
    .description('Run scenarios against a device (or the embedded virtual device) and report the verdict.')
    .option('--config <file>', 'config file (default: dedup-verify.config.json; --virtual: the reference-app config)')
    .option('--device <serial>', 'adb serial of a device to use (repeatable)', collect, [])
    .option('--all-devices', 'use every device adb lists')
    .option('--virtual', 'start an embedded virtual device running the reference app')
    .option('--bug <name>', 'with --virtual: switch on a bug of the reference app (repeatable)', collect, [])
    .option('--api <level>', 'with --virtual: API level profile (30, 33, 34)', intArg('--api'))
    .option('--scenario <name>', 'run only this scenario (repeatable)', collect, [])
    .option('--shard <i/n>', 'run the i-th of n deterministic slices of the scenarios')
    .option('--repeat <n>', 'run every scenario n times', intArg('--repeat'), 1)
    .option('--infra-retries <n>', 'retry infrastructure failures up to n times', intArg('--infra-retries'), 0)
    .option('--adb-host <host>', 'adb server host', '127.0.0.1')
    .option('--adb-port <port>', 'adb server port (default: $ANDROID_ADB_SERVER_PORT or 5037)', intArg('--adb-port'))
    .option('--out <dir>', 'write report.json, history.jsonl, junit.xml, report.html and evidence here')
    .option('--json', 'print the report as JSON on stdout')
    .addHelpText('after', `
Examples:
  $ dedup-verify run --virtual
  $ dedup-verify run --virtual --bug no-db-check --scenario back-to-back --out out/
  $ dedup-verify run --device emulator-5554 --config dedup-verify.config.json --out out/`)
    .action(async (opts: Record<string, unknown>) => {
      const { runRun } = await import('./commands/run.js');
      setExit(await runRun(opts, io));
    });

  program
    .command('check')
    .description('Check a recorded history (JSON Lines) and print the verdict, counts and anomalies.')
    .argument('<history>', 'history.jsonl file')
    .option('--window <ms>', 'notification window in ms (overrides the history config line)', intArg('--window'))
    .option('--allowed-duplicates <n>', 'duplicates tolerated per item (overrides the history config line)', intArg('--allowed-duplicates'))
    .option('--json', 'print { verdict, counts, anomalies } as JSON')
    .addHelpText('after', `
Examples:
  $ dedup-verify check out/history.jsonl
  $ dedup-verify check out/history.jsonl --window 172800000 --json`)
    .action(async (history: string, opts: Record<string, unknown>) => {
      const { runCheck } = await import('./commands/check.js');
      setExit(await runCheck(history, opts, io));
    });

  program
    .command('report')
    .description('Re-render report.html (and junit.xml) from report.json and history.jsonl in DIR.')
    .argument('<dir>', 'a directory written by run --out')
    .action(async (dir: string) => {
      const { runReport } = await import('./commands/report.js');
      setExit(await runReport(dir, io));
    });

  program
    .command('lint')
    .description("Static checks on the app's Kotlin/Java sources and Room schema JSON.")
    .argument('<path...>', 'source files or directories')
    .option('--json', 'print findings as JSON')
    .addHelpText('after', `
Examples:
  $ dedup-verify lint app/src/main
  $ dedup-verify lint app/src app/schemas --json`)
    .action(async (paths: string[], opts: Record<string, unknown>) => {
      const { runLint } = await import('./commands/lint.js');
      setExit(await runLint(paths, opts, io));
    });

  program
    .command('doctor')
    .description('Check that a device and app are ready for dedup-verify; print each problem with its fix.')
    .option('--device <serial>', 'adb serial of the device')
    .option('--config <file>', 'config file')
    .option('--adb-host <host>', 'adb server host', '127.0.0.1')
    .option('--adb-port <port>', 'adb server port', intArg('--adb-port'))
    .option('--json', 'print the checks as JSON')
    .action(async (opts: Record<string, unknown>) => {
      const { runDoctor } = await import('./commands/doctor.js');
      setExit(await runDoctor(opts, io));
    });

  program
    .command('init')
    .description('Inspect an app on a device and write a starting dedup-verify.config.json.')
    .option('--device <serial>', 'adb serial of the device')
    .option('--package <pkg>', 'application package name')
    .option('--out <file>', 'where to write the config', 'dedup-verify.config.json')
    .option('--adb-host <host>', 'adb server host', '127.0.0.1')
    .option('--adb-port <port>', 'adb server port', intArg('--adb-port'))
    .option('--json', 'print what was found as JSON')
    .action(async (opts: Record<string, unknown>) => {
      const { runInit } = await import('./commands/init.js');
      setExit(await runInit(opts, io));
    });

  program
    .command('virtual-device')
    .description('Start virtual Android devices that the real adb can connect to; runs until SIGINT or SIGTERM.')
    .option('--port <n>', 'TCP port of the first device (0: a free port)', intArg('--port'), 0)
    .option('--count <k>', 'number of devices, on consecutive ports', intArg('--count'), 1)
    .option('--api <level>', 'API level profile: 30, 33 or 34', intArg('--api'), 34)
    .option('--bug <name>', 'switch on a bug of the reference app (repeatable)', collect, [])
    .option('--no-root', 'refuse adb root, as a production build does')
    .option('--no-sqlite3', 'no sqlite3 binary on the device, as on user builds')
    .addHelpText('after', `
Examples:
  $ dedup-verify virtual-device --port 15555 &
  $ adb connect 127.0.0.1:15555 && adb -s 127.0.0.1:15555 shell getprop ro.build.version.sdk`)
    .action(async (opts: Record<string, unknown>) => {
      const { runVirtualDevice } = await import('./commands/virtual-device.js');
      setExit(await runVirtualDevice(opts, io));
    });

  program
    .command('serve-feed')
    .description('Serve a fixture feed (and the receipts backend) on 127.0.0.1 until SIGINT or SIGTERM.')
    .option('--port <n>', 'TCP port', intArg('--port'), 8765)
    .addOption(new Option('--fixture <name>', 'a built-in fixture feed').conflicts('file'))
    .option('--file <feed.xml>', 'serve this RSS or Atom file as /feed.xml (re-read on every request)')
    .option('--journal <file>', 'append every request (headers, body, status) to this JSON Lines file')
    .addHelpText('after', `
Examples:
  $ dedup-verify serve-feed --port 8765 --fixture malformed
  $ dedup-verify serve-feed --port 8765 --file feed.xml --journal journal.jsonl &
  $ adb reverse tcp:8765 tcp:8765`)
    .action(async (opts: Record<string, unknown>) => {
      const { runServeFeed } = await import('./commands/serve-feed.js');
      setExit(await runServeFeed(opts, io));
    });

  program
    .command('restore')
    .description('Put a device back as it was after an interrupted run (reads the state file).')
    .option('--device <serial>', 'adb serial of the device')
    .option('--adb-host <host>', 'adb server host', '127.0.0.1')
    .option('--adb-port <port>', 'adb server port', intArg('--adb-port'))
    .action(async (opts: Record<string, unknown>) => {
      const { runRestore } = await import('./commands/restore.js');
      setExit(await runRestore(opts, io));
    });

  return program;
}

/** Runs the CLI and returns the exit code; never throws. */
export async function main(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  let exit: number = ExitCode.Verified;
  const program = buildProgram(io, (code) => {
    exit = code;
  });
  try {
    await program.parseAsync([...argv]);
    return exit;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end with code 0; commander has already printed its message.
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return ExitCode.Undecided;
    }
    io.stderr(`error: ${describeError(e)}\n`);
    if (!isDedupVerifyError(e) && process.env['DEDUP_VERIFY_DEBUG'] && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
    return ExitCode.Undecided;
  }
}
