/**
 * feed.attach: the steps that point an app whose feeds are subscriptions at the fixture feed
 * (docs/configuration.md). They run once per session after the device state is saved (the
 * session's restore puts the app's data back), and again after every `pm clear` the harness
 * does, once the app has started again (device-harness.ts), each command a recorded `action`
 * event labelled `attach`, and so a step of the repro script.
 *
 * `{feedUrl}` is `http://127.0.0.1:<feed.devicePort><feed.path>`: as it is in an intent's data,
 * percent-encoded in a deep link (a query parameter's value), an SQL string literal in a
 * statement.
 *
 * - intent: `am start -W -a ACTION [-d DATA] [-t TYPE] -n COMPONENT`, or `-p PKG` without a
 *   component, so the intent is resolved among the app's activities only;
 * - deepLink: `am start -W -a android.intent.action.VIEW -d URI -p PKG`;
 * - sql: the statements in one transaction on a copy of the app's database, written back with
 *   the app stopped (app-data.ts editDatabase); the app is started again the way it was.
 *
 * `am start` prints its errors and exits 0 (ActivityManagerShellCommand.runStartActivity: with
 * `-W` the START_* errors go to stdout, `Error: Activity class {…} does not exist.` for
 * START_CLASS_NOT_FOUND, `Error: Activity not started, unable to resolve Intent { … }` for
 * START_INTENT_NOT_RESOLVED, `… you do not have permission to access it.` for
 * START_PERMISSION_DENIED; then `return 0`: aosp-mirror/platform_frameworks_base
 * services/core/java/com/android/server/am/ActivityManagerShellCommand.java @c014fb5c; a capture
 * of `am start -W -a android.intent.action.VIEW -d URL PKG` for a URL no filter takes prints
 * `Starting: Intent { … }` then `Error: Activity not started, unable to resolve Intent { …
 * flg=0x10000000 pkg=… }`: nordnet/cordova-universal-links-plugin README.md @5a1c6bf9). So a
 * step fails on such a line or a non-zero exit, and on an `Activity:` line outside the app's
 * package (the chooser, `android/com.android.internal.app.ResolverActivity`, when the intent
 * matched several activities). A failed step is a ConfigError naming the step and the fix.
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { feedUrl } from '../checker/check-history.js';
import type { AttachStep, Config } from '../config/types.js';
import { FEED_URL_PLACEHOLDER, isTableDatabase } from '../config/types.js';
import type { ShellResult } from '../device/android-device.js';
import { ConfigError, describeError, isDedupVerifyError } from '../errors.js';
import { startIntentCommand } from '../android/activity.js';
import { parseStartActivity } from '../android/parsers/activity-manager.js';
import { appOperand, databasePath, editDatabase } from '../android/app-data.js';
import type { DeviceSteps } from './device-steps.js';
import { delay } from './device-steps.js';

/** When the steps run: at the session's start, or after a `pm clear` once the app started again. */
export type AttachWhen = 'session' | 'after-clear';

export const VIEW_ACTION = 'android.intent.action.VIEW';

/** The form of a step, as the config names it. */
export function attachStepKind(step: AttachStep): 'intent' | 'deepLink' | 'sql' {
  if ('intent' in step) return 'intent';
  if ('deepLink' in step) return 'deepLink';
  return 'sql';
}

/** `text` with every `{feedUrl}` replaced by `value`. */
function substitute(text: string, value: string): string {
  return text.split(FEED_URL_PLACEHOLDER).join(value);
}

/** `{feedUrl}` as it is: in an intent's data. */
export function withFeedUrl(text: string, url: string): string {
  return substitute(text, url);
}

/** `{feedUrl}` percent-encoded (encodeURIComponent: every reserved character of RFC 3986): in a deep link. */
export function withEncodedFeedUrl(text: string, url: string): string {
  return substitute(text, encodeURIComponent(url));
}

/** `{feedUrl}` as an SQL string literal ('…', a quote doubled): in a statement. */
export function withSqlFeedUrl(statement: string, url: string): string {
  return substitute(statement, `'${url.replace(/'/g, "''")}'`);
}

/** `.Cls` or `full.Cls` → `PKG/.Cls`, `PKG/full.Cls`; a component with its package is kept. */
function componentOf(component: string, pkg: string): string {
  return component.includes('/') ? component : `${pkg}/${component}`;
}

/** The `am start` words of an intent or deep-link step (null for an sql step). */
export function attachCommand(step: AttachStep, config: Pick<Config, 'app' | 'feed'>): string[] | null {
  const url = feedUrl(config.feed);
  const pkg = config.app.package;
  if ('intent' in step) {
    const { action, data, mimeType, component } = step.intent;
    return startIntentCommand({
      action,
      ...(data !== undefined ? { data: withFeedUrl(data, url) } : {}),
      ...(mimeType !== undefined ? { mimeType } : {}),
      ...(component !== undefined ? { component: componentOf(component, pkg) } : { pkg }),
    });
  }
  if ('deepLink' in step) return startIntentCommand({ action: VIEW_ACTION, data: withEncodedFeedUrl(step.deepLink, url), pkg });
  return null;
}

/** The database an sql step edits: its `file`, else database.file (parse-config.ts refuses a config with neither). */
export function attachDatabaseFile(step: Extract<AttachStep, { sql: unknown }>, config: Pick<Config, 'database'>): string {
  const database = config.database;
  const file = step.sql.file ?? (isTableDatabase(database) ? database.file : undefined);
  if (file === undefined) throw new ConfigError('feed.attach: an sql step without "file" needs database.file', 'feed.attach');
  return databasePath(file);
}

/** The statements of an sql step, `{feedUrl}` an SQL string literal. */
export function attachStatements(step: Extract<AttachStep, { sql: unknown }>, config: Pick<Config, 'feed'>): string[] {
  const url = feedUrl(config.feed);
  return step.sql.statements.map((s) => withSqlFeedUrl(s, url));
}

/** "feed.attach step 2 of 3 (intent)". */
export function describeAttachStep(index: number, count: number, step: AttachStep): string {
  return `feed.attach step ${index + 1} of ${count} (${attachStepKind(step)})`;
}

/** What to change when `am start` refused a step (its error line). */
function startFix(index: number, step: AttachStep, pkg: string, message: string): string {
  const at = `feed.attach.${index}`;
  if (/Activity class \{.*\} does not exist/.test(message)) {
    return `${pkg} has no such activity: name one of its activities in ${at}.intent.component (they are listed by \`adb shell dumpsys package ${pkg}\`)`;
  }
  if (/unable to resolve/.test(message)) {
    const fields = 'intent' in step ? `${at}.intent's action, data and mimeType` : `the URI of ${at}.deepLink`;
    return `no activity of ${pkg} takes this intent: check ${fields} against the app's intent filters (\`adb shell dumpsys package ${pkg}\`)${'intent' in step ? ', or name the activity in component' : ', or use an intent step with the activity as component'}`;
  }
  if (/permission/.test(message)) return `the activity is not exported or needs a permission the shell does not hold: name an exported activity of ${pkg} in ${at}`;
  return `check ${at} against the app's manifest`;
}

/** Throws the one-line ConfigError for an `am start` of step `index` that did not start an activity of the app. */
export function checkAttachStart(result: ShellResult, argv: readonly string[], ctx: { readonly index: number; readonly count: number; readonly step: AttachStep; readonly pkg: string; readonly serial: string }): void {
  const what = describeAttachStep(ctx.index, ctx.count, ctx.step);
  const command = argv.join(' ');
  const parsed = parseStartActivity(result.stdout.toString('utf8'), result.stderr);
  const field = `feed.attach.${ctx.index}`;
  if (parsed.kind === 'error') {
    throw new ConfigError(`${what} failed on ${ctx.serial}: \`${command}\` printed "${parsed.message}"; ${startFix(ctx.index, ctx.step, ctx.pkg, parsed.message)}`, field);
  }
  if (result.exitCode !== 0) {
    const said = (result.stderr.trim() || result.stdout.toString('utf8').trim()).split('\n')[0] ?? '';
    throw new ConfigError(`${what} failed on ${ctx.serial}: \`${command}\` exited ${result.exitCode}${said !== '' ? ` ("${said}")` : ''}; check ${field} against the app's manifest`, field);
  }
  const owner = parsed.activity?.split('/')[0];
  if (parsed.activity !== null && owner !== ctx.pkg) {
    throw new ConfigError(
      `${what} on ${ctx.serial}: \`${command}\` opened ${parsed.activity}, not an activity of ${ctx.pkg} (the intent matched several activities and the chooser opened); name the activity in ${field}${'intent' in ctx.step ? '.intent.component' : ' with an intent step and its component'}`,
      field,
    );
  }
}

/** Runs one sql step on a copy of the app's database (the app stopped, left stopped). */
async function runSqlStep(steps: DeviceSteps, step: Extract<AttachStep, { sql: unknown }>, what: string, field: string): Promise<void> {
  const file = attachDatabaseFile(step, steps.config);
  const statements = attachStatements(step, steps.config);
  try {
    await editDatabase(steps.device, {
      pkg: steps.pkg,
      db: file,
      backupDir: `${steps.ctx.backupDir}/attach-${randomUUID()}`,
      now: () => steps.ctx.clock.now(),
    }, {
      apply: (db: Database.Database) => {
        let at = 0;
        try {
          db.transaction(() => {
            for (; at < statements.length; at++) db.exec(statements[at]!);
          })();
        } catch (e) {
          throw new ConfigError(`${what}: statement ${at + 1} failed on ${file} of ${steps.pkg} (${e instanceof Error ? e.message : String(e)}), so none was kept; fix ${field}.sql.statements.${at}`, `${field}.sql.statements`);
        }
        return statements.length;
      },
      verify: () => undefined,
    });
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`${what} failed on ${steps.device.serial}: ${describeError(e)}`, field, { cause: e });
  }
}

/**
 * Waits for the app's database to exist (an app creates it when it first opens it, after a start):
 * a backoff poll of `run-as PKG ls FILE` up to timeouts.commandMs. `start`, when given, is sent
 * first if the file is not there (the app never ran since it was installed).
 */
async function awaitDatabase(steps: DeviceSteps, file: string, what: string, field: string, start?: () => Promise<void>): Promise<void> {
  const argv = ['run-as', steps.pkg, 'ls', appOperand(file)];
  const exists = async (): Promise<boolean> => (await steps.device.shell(argv)).exitCode === 0;
  if (await exists()) return;
  if (start !== undefined) await start();
  const { clock } = steps.ctx;
  const deadline = clock.monotonic() + steps.config.timeouts.commandMs;
  let waitMs = 25;
  while (!(await exists())) {
    if (clock.monotonic() > deadline) {
      throw new ConfigError(
        `${what}: ${steps.pkg} has no ${file} ${start !== undefined ? 'after it was started' : 'after it started again'} (waited ${steps.config.timeouts.commandMs} ms); give the database the app creates in ${field}.sql.file`,
        `${field}.sql.file`,
      );
    }
    await delay(waitMs);
    waitMs = Math.min(waitMs * 2, 500);
  }
}

export interface AttachHooks {
  /** Starts the app when an sql step finds no database (at the session's start: the app may never have run). */
  readonly startFirst?: () => Promise<void>;
  /**
   * Before the first sql step edits the database: the harness stops the app and records what it
   * did meanwhile (a run it made by itself before it had a feed).
   */
  readonly beforeEdit?: () => Promise<void>;
  /** Starts the app again the way it was started, once sql steps stopped it (after a pm clear). */
  readonly startAgain?: () => Promise<void>;
}

/** Runs every step of feed.attach, in order; throws a ConfigError naming the step that failed. */
export async function attachFeed(steps: DeviceSteps, attach: readonly AttachStep[], when: AttachWhen, hooks: AttachHooks = {}): Promise<void> {
  const pkg = steps.pkg;
  let stopped = false;
  for (const [index, step] of attach.entries()) {
    steps.throwIfAborted();
    const what = describeAttachStep(index, attach.length, step);
    const detail = `${what}, ${when === 'session' ? 'at the start of the session' : 'after pm clear'}: point the app at ${feedUrl(steps.config.feed)}`;
    const field = `feed.attach.${index}`;
    const argv = attachCommand(step, steps.config);
    if (argv !== null) {
      const result = await steps.act({ action: 'attach', detail }, () => steps.device.shell(argv));
      checkAttachStart(result, argv, { index, count: attach.length, step, pkg, serial: steps.device.serial });
      continue;
    }
    if (!('sql' in step)) continue;
    await awaitDatabase(steps, attachDatabaseFile(step, steps.config), what, field, stopped ? undefined : hooks.startFirst);
    if (!stopped) await hooks.beforeEdit?.();
    try {
      await steps.act({ action: 'attach', detail }, () => runSqlStep(steps, step, what, field));
    } catch (e) {
      if (isDedupVerifyError(e)) throw e;
      throw new ConfigError(`${what} failed on ${steps.device.serial}: ${describeError(e)}`, field, { cause: e });
    }
    stopped = true;
  }
  if (stopped && hooks.startAgain !== undefined) await hooks.startAgain();
}
