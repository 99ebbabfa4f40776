/**
 * Instrumentation (ActivityManagerService.startInstrumentation / finishInstrumentation, the
 * watcher protocol `am instrument` prints): the test package's `<instrumentation>` names the
 * runner and the target package, whose process is started "for added application" and runs the
 * runner; the watcher gets status bundles and one final result.
 *
 * Sources (frameworks/base):
 * - services/core/java/com/android/server/am/ActivityManagerService.java startInstrumentation:
 *   an unknown component is reported to the watcher as status -1 with
 *   `id=ActivityManagerService` and `Error=Unable to find instrumentation info for: <ComponentInfo{…}>`
 *   and the call returns false; the target process is started with
 *   HostingRecord("added application", processName).
 * - handleAppDiedLocked / finishInstrumentationLocked: an instrumented process that dies finishes
 *   the instrumentation with Activity.RESULT_CANCELED (0) and `shortMsg=Process crashed.`; a
 *   finished instrumentation's process is killed ("finished inst").
 * - forceStopPackageLocked: also kills processes whose instrumentation comes from the package.
 * What the runner does in the target process is up to a registered InstrumentationRunner
 * (androidx AndroidJUnitRunner running the UiAutomator2 server: see ../uia2/).
 */
import type { AndroidSystem } from './android-system.js';
import type { AppProcess } from './app-process.js';
import type { InstrumentationSpec } from './app-framework.js';
import { flattenToString, type ComponentName } from './intent.js';
import { formatUid } from './java-lang.js';
import type { PackageState } from './package-manager.js';
import { LogPriority } from '../types.js';

/** Activity.RESULT_CANCELED / RESULT_OK. */
export const InstrumentationCode = { CANCELED: 0, OK: -1 } as const;

export type Bundle = ReadonlyMap<string, string>;

/** IInstrumentationWatcher: where `am instrument -w` hears from the instrumentation. */
export interface InstrumentationWatcher {
  status(code: number, results: Bundle): void;
  finished(code: number, results: Bundle): void;
}

/** One running instrumentation, as the runner sees it. */
export interface ActiveInstrumentation {
  readonly component: ComponentName;
  readonly info: InstrumentationSpec;
  readonly target: PackageState;
  readonly process: AppProcess;
  /** `-e KEY VALUE` arguments. */
  readonly args: Bundle;
  readonly startedElapsedMs: number;
  /** Instrumentation.sendStatus. */
  sendStatus(code: number, results: Bundle): void;
  /** Instrumentation.finish: reports the result and kills the process. Idempotent. */
  finish(code: number, results: Bundle): void;
  /** Resolves when the instrumentation finished (for any reason). */
  readonly done: Promise<void>;
}

/** Runs inside the target process; called once the process is up. */
export type InstrumentationRunner = (run: ActiveInstrumentation, system: AndroidSystem) => void;

export class InstrumentationController {
  private readonly runners = new Map<string, InstrumentationRunner>();
  private readonly active = new Set<ActiveInstrumentation>();

  constructor(private readonly system: AndroidSystem) {}

  /** The code behind `<testPackage>/<runner class>` (the default runner finishes with no tests). */
  registerRunner(testPackage: string, runnerClass: string, runner: InstrumentationRunner): void {
    this.runners.set(`${testPackage}/${runnerClass}`, runner);
  }

  running(): readonly ActiveInstrumentation[] {
    return [...this.active];
  }

  /** ActivityManagerService.startInstrumentation; false when the component is unknown. */
  async start(component: ComponentName, args: Bundle, watcher: InstrumentationWatcher | undefined): Promise<boolean> {
    const found = this.system.packages
      .instrumentations()
      .find(({ pkg, info }) => pkg.packageName === component.packageName && info.name === component.className);
    const target = found === undefined ? undefined : this.system.packages.get(found.info.targetPackage);
    if (found === undefined || target === undefined) {
      const reason = found === undefined ? `Unable to find instrumentation info for: ComponentInfo{${flattenToString(component)}}` : `Unable to find instrumentation target package: ${found.info.targetPackage}`;
      this.system.log.slog(LogPriority.W, 'ActivityManager', reason);
      watcher?.status(-1, new Map([['Error', reason], ['id', 'ActivityManagerService']]));
      return false;
    }
    // A new instrumentation of a package replaces the process (forceStopPackageLocked "start instr").
    this.system.activities.forceStop(target.packageName, 'start instr');
    const record = await this.system.activities.ensureProcess(target, 'added application', target.packageName);
    let finished = false;
    let resolveDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      resolveDone = resolve;
    });
    const run: ActiveInstrumentation = {
      component,
      info: found.info,
      target,
      process: record.process,
      args,
      startedElapsedMs: this.system.device.clock.elapsedRealtime(),
      sendStatus: (code, results) => {
        if (!finished) watcher?.status(code, results);
      },
      finish: (code, results) => {
        if (finished) return;
        finished = true;
        this.active.delete(run);
        watcher?.finished(code, results);
        resolveDone();
        // finishInstrumentationLocked: the instrumented process is removed.
        if (record.process.alive) {
          this.system.log.slog(LogPriority.I, 'ActivityManager', `Killing ${record.process.pid}:${record.process.name}/${formatUid(target.uid)} (adj 0): finished inst`);
          record.process.kill('finished inst');
        }
      },
      done,
    };
    this.active.add(run);
    record.process.onDeath(() => run.finish(InstrumentationCode.CANCELED, new Map([['shortMsg', 'Process crashed.']])));
    const runner = this.runners.get(`${component.packageName}/${component.className}`) ?? finishWithoutTests;
    runner(run, this.system);
    return true;
  }

  /** forceStopPackageLocked: instrumentations coming from `pkg` end with their process. */
  onPackageForceStopped(pkg: string): void {
    for (const run of [...this.active]) {
      if (run.component.packageName === pkg) run.process.kill(`stop ${pkg}`);
    }
  }
}

/** AndroidJUnitRunner with nothing to run: the JUnit summary for zero tests. */
function finishWithoutTests(run: ActiveInstrumentation): void {
  setImmediate(() => run.finish(InstrumentationCode.OK, new Map([['stream', '\nTime: 0.001\n\nOK (0 tests)\n\n']])));
}
