/**
 * CLI wiring (docs/design.md §9). The only place that turns outcomes into exit codes:
 * 0 every property verified, 1 a property was violated, 2 could not decide (usage or config
 * error, device or infrastructure failure, refused run). Command bodies live in
 * ./commands/<name>.ts and are loaded lazily, so `--help` answers at once and `check`/`lint`
 * never load adb, SQLite or WebDriver code.
 */
import { Command, CommanderError, InvalidArgumentError, Option, type OutputConfiguration } from 'commander';
import { describeError, isDedupVerifyError } from '../errors.js';
import { defaultIo, terminalIo, type CliIo } from './io.js';
import { escapeControls } from '../text.js';
import { VERSION } from '../version.js';
import { BUG_NAMES } from '../virtual-device/apps/feed-notifier/bugs.js';
import { APP_LOG_LEVELS } from '../virtual-device/types.js';
import { APP_PROFILES } from '../virtual-device/apps/feed-notifier/app-profiles.js';
import { MAX_LATENCY_MS } from '../virtual-device/adbd/delayed-link.js';

export const ExitCode = { Verified: 0, Violated: 1, Undecided: 2 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export type { CliIo } from './io.js';

/**
 * Scenario names for `run --help` (docs/design.md §6). Listed here rather than imported so that
 * `--help` loads no scenario code; specs/unit/cli/help.spec.ts keeps it equal to SCENARIO_NAMES.
 */
export const HELP_SCENARIO_NAMES = [
  'back-to-back',
  'db-is-truth',
  'missed-run',
  'window-vs-interval',
  'malformed-entries',
  'first-install',
  'oldest-first',
  'kill-mid-run',
  'title-edit',
  'cold-process',
  'retry-classification',
  'idempotency-key',
  'unique-work',
  'process-death-replay',
  'durable-identity',
] as const;


function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function intArg(name: string) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError(`${name} takes a whole number.`);
    return Number(value);
  };
}

/** A TCP port: `min` is 1 for a server to reach, 0 where 0 means "pick a free port". */
function portArg(name: string, min: 0 | 1) {
  return (value: string): number => {
    const range = `a TCP port from ${min} to 65535${min === 0 ? ' (0: a free port)' : ''}`;
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} takes a whole number, ${range}.`);
    const port = Number(value);
    if (port < min || port > 65535) throw new InvalidArgumentError(`${name} takes ${range} (got ${value}).`);
    return port;
  };
}

/** `--latency MS`: the virtual device's one-way delay, a whole number of milliseconds. */
function latencyArg(name: string) {
  return (value: string): number => {
    const range = `a whole number of milliseconds from 0 to ${MAX_LATENCY_MS} (0: no delay)`;
    if (!/^\d+$/.test(value) || Number(value) > MAX_LATENCY_MS) throw new InvalidArgumentError(`${name} takes ${range}, e.g. ${name} 100.`);
    return Number(value);
  };
}

/** The "Examples:" block every command's --help ends with. */
function examples(...lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}`;
}

const EXIT_CODES = `
Exit codes:
  0  every property verified (check, lint: nothing found; doctor: every check ok)
  1  a property was violated (lost, duplicated, unexpected or out-of-order items; lint findings)
  2  could not decide: usage or config error, device or adb failure, refused run`;

/**
 * Commander prints a usage error and, separately, a hint; here both go on one line that names
 * the help to read, so every usage error is exactly one line on stderr.
 */
function oneLineErrors(io: CliIo, commandPath: string): OutputConfiguration {
  return {
    writeOut: io.stdout,
    writeErr: io.stderr,
    outputError: (text, write) => write(`${text.trim().replace(/\s*\n\s*/g, ' ')} (see \`${commandPath} --help\`)\n`),
  };
}

export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('dedup-verify');
  program
    .description("Proves on an Android device that an app's periodic notifier misses nothing and repeats at most one item.")
    .version(VERSION, '-V, --version', 'print the version of dedup-verify')
    .helpOption('-h, --help', 'show this help')
    .configureOutput(oneLineErrors(io, 'dedup-verify'))
    .exitOverride()
    .addHelpText(
      'after',
      `${EXIT_CODES}
${examples(
  '$ dedup-verify run --virtual                 # try it: the reference app on the embedded virtual device',
  '$ dedup-verify doctor --device emulator-5554  # is this emulator and app ready?',
  '$ dedup-verify init --device emulator-5554 --package com.example.app',
  '$ dedup-verify run --device emulator-5554 --out out/',
  '$ dedup-verify check out/history.jsonl',
  '$ dedup-verify run --help                    # every command has its own help',
)}

Environment:
  ANDROID_ADB_SERVER_PORT  adb server port, as adb reads it (default 5037)
  ADB                      the adb binary (else $ANDROID_HOME/platform-tools/adb, then PATH)
  XDG_STATE_HOME           where interrupted runs leave state for \`restore\` (default ~/.local/state)
  DEDUP_VERIFY_DEBUG=1     print the stack of an unexpected error`,
    );
  /** A subcommand with the shared settings: one-line usage errors naming its own --help. */
  const command = (name: string): Command => program.command(name).configureOutput(oneLineErrors(io, `dedup-verify ${name}`));

  command('run')
    .description(
      'Run scenarios against a device (or the embedded virtual device) and report the verdict. Without --scenario every scenario runs; the device is restored afterwards, also on Ctrl-C.',
    )
    .option('--config <file>', 'config file (default: ./dedup-verify.config.json; with --virtual: the reference-app config)')
    .option('--device <serial>', 'adb serial of a device to use (repeatable; HOST:PORT is connected first)', collect)
    .option('--all-devices', 'use every device `adb devices` lists as online, in parallel')
    .option('--virtual', 'start an embedded virtual device running the reference app (no emulator needed)')
    .option('--bug <name>', `with --virtual: switch on a bug of the reference app (repeatable): ${BUG_NAMES.join(', ')}`, collect)
    .option('--api <level>', 'with --virtual: API level profile, 30, 33, 34, 35 or 36 (default 34)', intArg('--api'))
    .option('--latency <ms>', 'with --virtual: delay every packet the virtual device sends by MS milliseconds (0 to 60000), as a slow link would', latencyArg('--latency'))
    .option('--app-log-level <level>', `with --virtual: the reference app's WorkManager minimum log level (Configuration.setMinimumLoggingLevel), ${APP_LOG_LEVELS.join(', ')} (default info); at warn and error no "Worker result" line is logged`)
    .option('--app-profile <name>', `with --virtual: the shape of a real app the reference app is written in, ${APP_PROFILES.join(', ')} (default reference; without --config, its fixtures/profiles config; docs/real-apps.md)`)
    .option('--scenario <name>', `run only this scenario (repeatable): ${HELP_SCENARIO_NAMES.join(', ')}`, collect)
    .option('--shard <i/n>', 'run the i-th of n deterministic slices of the scenarios (CI fan-out), e.g. 2/4')
    .option('--repeat <n>', 'run every scenario n times (flakiness hunt)', intArg('--repeat'), 1)
    .option('--infra-retries <n>', 'retry a scenario up to n times when the device or adb fails (never on a violated property)', intArg('--infra-retries'), 0)
    .option('--adb-host <host>', 'adb server host', '127.0.0.1')
    .option('--adb-port <port>', 'adb server port (default: $ANDROID_ADB_SERVER_PORT or 5037)', portArg('--adb-port', 1))
    .option('--out <dir>', 'write report.json, history.jsonl, junit.xml, report.html, repro scripts and evidence here')
    .option('--force', 'with --out: write into a folder that holds files dedup-verify did not write (they are kept; its own file names are replaced)')
    .option('--json', 'print the report (report.json) on stdout instead of the summary')
    .option('--appium <url>', 'reach each device through a WebDriver session on this Appium server or hub (needs webdriverio, and the adb server of --adb-host/--adb-port for the logcat stream and adb reverse)')
    .option('--caps <file|json>', 'with --appium: extra capabilities for every session, a JSON file or inline JSON object')
    .addHelpText(
      'after',
      examples(
        '$ dedup-verify run --virtual',
        '$ dedup-verify run --virtual --bug no-db-check --scenario back-to-back --out out/',
        '$ dedup-verify run --device emulator-5554 --config dedup-verify.config.json --out out/',
        '$ dedup-verify run --all-devices --shard 1/2 --json > report.json',
        '$ dedup-verify run --appium http://127.0.0.1:4723 --device emulator-5554 --out out/',
      ) + `\n${EXIT_CODES}`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runRun } = await import('./commands/run.js');
      setExit(await runRun(opts, io));
    });

  command('check')
    .description('Check a recorded history (JSON Lines, as run --out writes it) and print the verdict, counts and anomalies.')
    .argument('<history>', 'history.jsonl file (written by run --out)')
    .option('--window <ms>', "the app's notification window in ms (overrides the history's config line)", intArg('--window'))
    .option('--allowed-duplicates <n>', "items each killed run may leave to be repeated by a later run (overrides the history's config line)", intArg('--allowed-duplicates'))
    .option('--json', 'print { verdict, counts, anomalies } as JSON')
    .addHelpText(
      'after',
      examples('$ dedup-verify check out/history.jsonl', '$ dedup-verify check out/history.jsonl --window 172800000 --json') + `\n${EXIT_CODES}`,
    )
    .action(async (history: string, opts: Record<string, unknown>) => {
      const { runCheck } = await import('./commands/check.js');
      setExit(await runCheck(history, opts, io));
    });

  command('report')
    .description('Re-render report.html and junit.xml from the report.json and history.jsonl in DIR (e.g. artefacts from a device farm).')
    .argument('<dir>', 'a directory written by run --out')
    .option('--json', 'print { dir, html, junit, verdict, warnings } as JSON')
    .addHelpText('after', examples('$ dedup-verify report out/', '$ dedup-verify report artefacts/run-42 --json'))
    .action(async (dir: string, opts: Record<string, unknown>) => {
      const { runReport } = await import('./commands/report.js');
      setExit(await runReport(dir, io, opts));
    });

  command('lint')
    .description("Static checks on the app's Kotlin/Java sources and Room schema JSON (no device needed).")
    .argument('<path...>', 'source files or directories')
    .option('--json', 'print { findings, filesScanned, unresolved, notes } as JSON')
    .addHelpText('after', examples('$ dedup-verify lint app/src/main', '$ dedup-verify lint app/src app/schemas --json') + `\n${EXIT_CODES}`)
    .action(async (paths: string[], opts: Record<string, unknown>) => {
      const { runLint } = await import('./commands/lint.js');
      setExit(await runLint(paths, opts, io));
    });

  command('doctor')
    .description(
      'Check that adb, the device and the app are ready for dedup-verify: each check prints what it found and, when it fails, the fix. Exit 0 when all pass, 2 otherwise.',
    )
    .option('--device <serial>', 'adb serial of the device (default: the only online device)')
    .option('--config <file>', 'config file (default: ./dedup-verify.config.json, else the reference-app config)')
    .option('--adb-host <host>', 'adb server host', '127.0.0.1')
    .option('--adb-port <port>', 'adb server port (default: $ANDROID_ADB_SERVER_PORT or 5037)', portArg('--adb-port', 1))
    .option('--capture <dir>', 'read a capture directory offline instead (from `dedup-verify capture`, or pasted outputs and threadtime logs): per file, the records understood and the lines not; exit 1 when any line was not understood')
    .option('--json', 'print { ok, checks: [{ name, ok, found, fix? }] } as JSON (with --capture: { ok, device, files: [{ file, kind, command, understood, notUnderstood }] })')
    .addHelpText(
      'after',
      examples(
        '$ dedup-verify doctor',
        '$ dedup-verify doctor --device emulator-5554 --config dedup-verify.config.json',
        '$ dedup-verify doctor --json',
        '$ dedup-verify doctor --capture capture-emulator-5554/',
      ),
    )
    .action(async (opts: Record<string, unknown>) => {
      if (typeof opts['capture'] === 'string') {
        const { runDoctorCapture } = await import('./commands/doctor-capture.js');
        setExit(await runDoctorCapture(opts['capture'], opts, io));
        return;
      }
      const { runDoctor } = await import('./commands/doctor.js');
      setExit(await runDoctor(opts, io));
    });

  command('capture')
    .description(
      "Record, read-only, what the device prints for every command dedup-verify relies on (getprop, dumpsys jobscheduler and notification, logcat events and main, run-as, auto_time, job states, the workdb schema) into a directory with device.json; changes nothing on the device. Attach it to a bug report; `doctor --capture DIR` reads it offline.",
    )
    .option('--device <serial>', 'adb serial of the device (default: the only online device)')
    .option('--package <pkg>', "the app whose job, permissions and workdb schema are captured (without it: device-wide outputs only)")
    .option('--out <dir>', 'a new or empty directory to write into (required)')
    .option('--adb-host <host>', 'adb server host', '127.0.0.1')
    .option('--adb-port <port>', 'adb server port (default: $ANDROID_ADB_SERVER_PORT or 5037)', portArg('--adb-port', 1))
    .addHelpText(
      'after',
      examples('$ dedup-verify capture --device emulator-5554 --package com.example.app --out capture-emulator-5554/', '$ dedup-verify doctor --capture capture-emulator-5554/'),
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runCapture } = await import('./commands/capture.js');
      setExit(await runCapture(opts, io));
    });

  command('init')
    .description(
      'Inspect an app on a device (debuggable? WorkManager database? unique periodic work? dedup table?) and write a starting config; its "$comment" lists every guess to confirm. Launch the app once first.',
    )
    .option('--device <serial>', 'adb serial of the device (default: the only online device)')
    .option('--package <pkg>', 'application id (default: the only debuggable third-party app with WorkManager work)')
    .option('--out <file>', 'where to write the config', 'dedup-verify.config.json')
    .option('--force', 'overwrite --out if it exists')
    .option('--adb-host <host>', 'adb server host', '127.0.0.1')
    .option('--adb-port <port>', 'adb server port (default: $ANDROID_ADB_SERVER_PORT or 5037)', portArg('--adb-port', 1))
    .option('--json', 'print { path, device, package, found, confirm, config } as JSON')
    .addHelpText(
      'after',
      examples(
        '$ adb shell am start -n com.example.app/.MainActivity   # once, so WorkManager schedules its work',
        '$ dedup-verify init --device emulator-5554 --package com.example.app',
        '$ dedup-verify init --out configs/app.config.json --force --json',
      ),
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runInit } = await import('./commands/init.js');
      setExit(await runInit(opts, io));
    });

  command('virtual-device')
    .description(
      'Start virtual Android devices running the reference app, that the real adb connects to; prints "virtual device listening on 127.0.0.1:PORT" per device and runs until SIGINT or SIGTERM.',
    )
    .option('--port <n>', 'TCP port of the first device (0: a free port)', portArg('--port', 0), 0)
    .option('--count <k>', 'number of devices, on consecutive ports', intArg('--count'), 1)
    .option('--api <level>', 'API level profile: 30, 33, 34, 35 or 36', intArg('--api'), 34)
    .option('--bug <name>', `switch on a bug of the reference app (repeatable): ${BUG_NAMES.join(', ')}`, collect)
    .option('--no-root', 'refuse adb root, as a production (Google Play) image does')
    .option('--no-sqlite3', 'no sqlite3 binary on the device, as on user builds')
    .option('--latency <ms>', 'delay every packet a device sends by MS milliseconds (0 to 60000; 0: none), as a slow link would: each adb round trip costs about MS more', latencyArg('--latency'), 0)
    .option('--app-log-level <level>', `the reference app's WorkManager minimum log level (Configuration.setMinimumLoggingLevel): ${APP_LOG_LEVELS.join(', ')}; at warn and error no "Worker result" line is logged`, 'info')
    .option('--app-profile <name>', `the shape of a real app the reference app is written in: ${APP_PROFILES.join(', ')} (docs/real-apps.md)`, 'reference')
    .option('--physical', 'answer as a phone, not an emulator: a real phone\'s build properties, without ro.kernel.qemu / ro.boot.qemu')
    .addHelpText(
      'after',
      examples(
        '$ dedup-verify virtual-device --port 15555 &',
        '$ adb connect 127.0.0.1:15555 && adb -s 127.0.0.1:15555 shell getprop ro.build.version.sdk',
        '$ dedup-verify virtual-device --port 15555 --count 4 --api 33 --bug no-db-check --no-root',
      ),
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runVirtualDevice } = await import('./commands/virtual-device.js');
      setExit(await runVirtualDevice(opts, io));
    });

  command('serve-feed')
    .description(
      'Serve a fixture feed as /feed.xml (and the /receipts backend) on 127.0.0.1 until SIGINT or SIGTERM, printing one line per request: replay a scenario by hand with plain adb.',
    )
    .option('--port <n>', 'TCP port on 127.0.0.1 (0: a free port)', portArg('--port', 0), 8765)
    .addOption(new Option('--fixture <name>', 'a built-in fixture feed from fixtures/feeds (default: fresh-five)').conflicts('file'))
    .option('--file <feed.xml>', 'serve this RSS or Atom file as /feed.xml (re-read on every request, so it can be edited)')
    .option('--journal <file>', 'append every request (headers, body, status) to this JSON Lines file')
    .addHelpText(
      'after',
      examples(
        '$ dedup-verify serve-feed --port 8765 --fixture malformed',
        '$ dedup-verify serve-feed --port 8765 --file feed.xml --journal journal.jsonl &',
        '$ adb reverse tcp:8765 tcp:8765   # the app fetches http://127.0.0.1:8765/feed.xml on the device',
      ),
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runServeFeed } = await import('./commands/serve-feed.js');
      setExit(await runServeFeed(opts, io));
    });

  command('restore')
    .description(
      "Put a device back as it was after an interrupted run (crash, kill -9): clock, auto_time, adb reverse rules, the app's database and shared preferences, from the state file the run left.",
    )
    .option('--device <serial>', 'adb serial of the device (default: the only device with a state file)')
    .option('--adb-host <host>', 'adb server host (default: the one the run used)')
    .option('--adb-port <port>', 'adb server port (default: the one the run used)', portArg('--adb-port', 1))
    .option('--json', 'print { restored, nothingToRestore, failed } as JSON')
    .addHelpText('after', examples('$ dedup-verify restore', '$ dedup-verify restore --device emulator-5554 --json'))
    .action(async (opts: Record<string, unknown>) => {
      const { runRestore } = await import('./commands/restore.js');
      setExit(await runRestore(opts, io));
    });

  return program;
}

/** Runs the CLI and returns the exit code; never throws. */
export async function main(argv: readonly string[], given: CliIo = defaultIo): Promise<number> {
  // Everything printed is shown with its control characters escaped, whatever its source.
  const io = terminalIo(given);
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
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      // `dedup-verify` alone prints the help on stderr: a usage error.
      if (e.code === 'commander.help') return e.exitCode === 0 ? 0 : ExitCode.Undecided;
      return ExitCode.Undecided;
    }
    // One line: a line end quoted from the input is shown as \u000a.
    io.stderr(`error: ${escapeControls(describeError(e), { oneLine: true })}\n`);
    if (!isDedupVerifyError(e) && process.env['DEDUP_VERIFY_DEBUG'] && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
    return ExitCode.Undecided;
  }
}
