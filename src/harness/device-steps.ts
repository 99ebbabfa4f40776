/**
 * What every part of the harness over a real device shares: the session's device wrapped in a
 * RecordingDevice, the history and repro steps being written, the labelled steps (`act`), the
 * batched reads (`read`) and the device clock's moves. DeviceHarness and its seams
 * (src/harness/seams/) send every command through one instance of this class.
 *
 * Every command goes through the RecordingDevice: the history's `action` events of device
 * commands, and the repro script made from them, are what was really sent (command-log.ts),
 * each labelled with the harness step that sent it (`act`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AndroidDevice, ShellResult } from '../device/android-device.js';
import { RecordingDevice } from '../device/recording-device.js';
import type { Config } from '../config/types.js';
import type { HistoryEvent, RunOutcome as HistoryRunOutcome } from '../history/events.js';
import { DedupVerifyError, DeviceCommandError, ErrorCode, describeError } from '../errors.js';
import { deviceTimeRead, readDeviceTimeMs, setDeviceTime, setTimeCommand, setTimeTook, type SetTimeMethod } from '../android/clock.js';
import { runReads, settledRead, type ReadValues, type ShellRead } from '../android/shell-reads.js';
import type { BatchCommand } from '../device/shell-batch.js';
import type { ReproStep } from './actions.js';
import { commandEvents, isReadOnlyCommand, type ActionLabel } from './command-log.js';
import type { SessionContext } from './device-harness.js';

/** A command of a sequence sent in one shell invocation, with the label of its own step. */
export interface SequenceStep {
  readonly label: ActionLabel;
  /** The words, or a command line the harness built (a read-only wait, labelled `readOnly`). */
  readonly argv: BatchCommand;
  /**
   * A read whose failure is its result (a -wal that is not there): the commands after it run
   * whatever its status (reads after a change that only make sense after it, or reads of the
   * state before the changes that follow them, DeviceSteps.readFirst).
   */
  readonly goOnAfterFailure?: boolean;
}

/** How many of the last commands roundTripMs looks at. */
const RECENT_COMMANDS = 8;

export interface SequenceOptions {
  readonly timeoutMs?: number;
  /** A command of the sequence waits on the device (for a run's end): the invocation lasts that long. */
  readonly waits?: boolean;
}

export class DeviceSteps {
  readonly config: Config;
  readonly apiLevel: number;
  readonly notes: string[] = [];
  readonly history: HistoryEvent[] = [];
  readonly reproSteps: ReproStep[] = [];
  /**
   * The session's device, recording every command the scenario sends (command-log.ts turns the
   * records into `action` events). Times: the device clock as last measured; durations: the
   * host's monotonic clock.
   */
  private readonly recorder: RecordingDevice<ActionLabel>;
  /** The step of the harness the commands being sent belong to (see `act`). */
  private readonly labels = new AsyncLocalStorage<ActionLabel>();
  /** Records of the recorder looked at by changesSent, and how many of them changed the device. */
  private scannedRecords = 0;
  private changeCount = 0;
  /** Reads still running whose results are no longer needed (a poll overtaken by the event it looked for). */
  readonly inFlight: Promise<unknown>[] = [];

  /** Reads that go out with the next `read` (rideWithNextRead). */
  private readonly riders: ShellRead<unknown>[] = [];
  /** Reads that go out first with the next invocation, before its changes (readFirst). */
  private readonly first: { readonly read: ShellRead<unknown>; readonly took: (result: FirstReadResult) => void }[] = [];
  /** Changes that go out first with the next command that changes the device (deferChange). */
  private readonly deferred: { readonly step: SequenceStep; readonly check: (result: ShellResult | undefined) => void }[] = [];

  constructor(readonly ctx: SessionContext) {
    this.config = ctx.config;
    this.apiLevel = ctx.apiLevel;
    ctx.deviceClock.remeasure();
    this.recorder = new RecordingDevice<ActionLabel>(ctx.device, {
      clock: { now: () => this.deviceTimeEstimate(), monotonic: () => ctx.clock.monotonic() },
      context: () => this.labels.getStore(),
    });
  }

  get device(): AndroidDevice {
    return this.recorder;
  }

  get pkg(): string {
    return this.config.app.package;
  }

  throwIfAborted(): void {
    if (this.ctx.signal.aborted) {
      throw new DedupVerifyError(ErrorCode.Internal, `stopped: ${describeError(this.ctx.signal.reason)}`);
    }
  }

  note(text: string): void {
    this.notes.push(text);
  }

  record(event: HistoryEvent): void {
    this.flushCommands();
    this.append(event);
  }

  private append(event: HistoryEvent, data?: Buffer): void {
    this.history.push(event);
    // A fault is the fixture server's: its repro step is the fault step, with the plan itself.
    if (event.type === 'action' && event.action !== 'fault') this.reproSteps.push({ kind: 'action', event, ...(data !== undefined ? { data } : {}) });
    else if (event.type === 'run-finished') this.reproSteps.push({ kind: 'run-finished', event });
  }

  /** The device commands sent since the last call, as action events (command-log.ts). */
  flushCommands(): void {
    const records = this.recorder.takeFinished();
    if (records.length === 0) return;
    for (const { event, data } of commandEvents(records)) this.append(event, data);
  }

  /**
   * Runs one step of the harness: the commands it sends that change the device are recorded
   * with `label` (their action name, run, detail), and land in the history as the step ends.
   */
  async act<T>(label: ActionLabel, step: () => Promise<T>): Promise<T> {
    await this.flushFirst();
    await this.flushPendingClock();
    await this.flushDeferred();
    try {
      return await this.labels.run(label, step);
    } finally {
      this.flushCommands();
    }
  }

  /**
   * Commands that change the device, one after another in one shell invocation, each with the
   * label of its own step (RecordingDevice.shellSequence): a command runs only when the one
   * before it exited 0; the results end at the first that did not. Each is recorded and lands in
   * the history as its own action event, as if sent on its own. A set of the clock that waits
   * for the next change (DeviceClock.willSet) goes first in the same invocation, then the changes
   * that wait (deferChange).
   */
  async actInSequence(sequence: readonly SequenceStep[], options: SequenceOptions = {}): Promise<ShellResult[]> {
    const first = this.first.splice(0);
    const deferred = this.deferred.splice(0);
    if (first.length === 0 && deferred.length === 0) return this.sequenceWithClock(sequence, options);
    const reads: SequenceStep[] = first.flatMap((f) => f.read.commands.map((argv) => ({ label: { readOnly: true }, argv, goOnAfterFailure: true })));
    const results = await this.sequenceWithClock([...reads, ...deferred.map((d) => d.step), ...sequence], options);
    await deliverFirst(first, results.slice(0, reads.length));
    deferred.forEach((d, i) => d.check(results[reads.length + i]));
    return results.slice(reads.length + deferred.length);
  }

  /**
   * A read that goes first in the next invocation, before the changes of that invocation (the
   * state a scenario left, read with the next scenario's first command), or on its own before a
   * step sent on its own (act), a read (read), or at the latest as the scenario ends (flushFirst).
   * `took` gets its value, or the error that kept it from one.
   */
  readFirst<T>(read: ShellRead<T>, took: (result: FirstReadResult<T>) => void): void {
    this.first.push({ read, took: took as (result: FirstReadResult) => void });
  }

  /** Sends the reads that wait to go first (readFirst) on their own. */
  async flushFirst(): Promise<void> {
    const first = this.first.splice(0);
    if (first.length === 0) return;
    let settled: PromiseSettledResult<unknown>[];
    try {
      settled = await runReads(this.device, first.map((f) => settledRead(f.read)));
    } catch (e) {
      settled = first.map(() => ({ status: 'rejected', reason: e }));
    } finally {
      this.flushCommands();
    }
    first.forEach((f, i) => {
      const r = settled[i]!;
      f.took(r.status === 'fulfilled' ? { value: r.value } : { error: r.reason });
    });
  }

  /**
   * A change that waits for the next command that changes the device and goes first in its
   * invocation (actInSequence), or on its own before a step (act) or a read (read), which may
   * depend on it. `check` gets its result (undefined when it did not run) and throws as the
   * command sent on its own would have.
   */
  deferChange(step: SequenceStep, check: (result: ShellResult | undefined) => void): void {
    this.deferred.push({ step, check });
  }

  /** Sends the changes that wait (deferChange) on their own (at the latest as the scenario ends). */
  async flushDeferred(): Promise<void> {
    const deferred = this.deferred.splice(0);
    if (deferred.length === 0) return;
    const results = await this.sequenceWithClock(deferred.map((d) => d.step));
    deferred.forEach((d, i) => d.check(results[i]));
  }

  /** actInSequence's sequence, after the set of the clock that waits (DeviceClock.willSet). */
  private async sequenceWithClock(steps: readonly SequenceStep[], options: SequenceOptions = {}): Promise<ShellResult[]> {
    const to = this.ctx.deviceClock.takePendingSet();
    if (to === undefined) return this.sendSequence(steps, options);
    const before = this.ctx.clock.now();
    // The events of the invocation are timed at the time the set gives the clock: the events
    // timed while the set waited (a feed served, the run's start) already carry that time, and
    // the history stays in device-time order.
    const [set, ...rest] = await this.sendSequence(
      [{ label: this.setTimeLabel(to), argv: setTimeCommand(to), startedAt: to }, ...steps.map((step) => ({ ...step, startedAt: to }))],
      options,
    );
    if (set !== undefined && setTimeTook(set)) {
      // The set is the invocation's first command: when later ones wait on the device (a run's
      // end), the invocation's end says nothing of when it ran, its start does.
      this.ctx.deviceClock.wasSet(to, before, options.waits === true ? before : this.ctx.clock.now(), 'cmd-alarm');
      return rest;
    }
    if (rest.length > 0) {
      // Exit 0 but the text of a shell without the command: what followed ran at the old time.
      throw new DeviceCommandError(`\`cmd alarm set-time\` stopped setting the clock of ${this.device.serial} part-way through the session: ${(set?.stdout.toString('utf8') ?? '').trim() || (set?.stderr ?? '').trim()}`, {
        command: setTimeCommand(to).join(' '),
        ...(set !== undefined ? { exitCode: set.exitCode, stderr: set.stderr } : {}),
      });
    }
    // The set failed and nothing after it ran: setDeviceTime's other way (or its error), then the steps.
    this.ctx.deviceClock.setWith = undefined;
    await this.setClock(to);
    return this.sendSequence(steps, options);
  }

  private async sendSequence(steps: readonly (SequenceStep & { readonly startedAt?: number })[], options: { readonly timeoutMs?: number }): Promise<ShellResult[]> {
    try {
      return await this.recorder.shellSequence(
        steps.map((step) => ({
          command: step.argv,
          context: step.label,
          ...(step.startedAt !== undefined ? { startedAt: step.startedAt } : {}),
          ...(step.goOnAfterFailure === true ? { goOnAfterFailure: true } : {}),
        })),
        options,
      );
    } finally {
      this.flushCommands();
    }
  }

  /**
   * The device time now, from the host clock and the offset measured at the last clock read or
   * set (for events that need a time but not a device round trip of their own).
   */
  deviceTimeEstimate(): number {
    return this.ctx.deviceClock.now() ?? this.ctx.clock.now();
  }

  /**
   * Sends `reads` in one shell invocation (src/device/shell-batch.ts), with a `date` when the
   * device clock's offset wants measuring (device-clock.ts): one round trip for all of them.
   */
  async read<const R extends readonly ShellRead<unknown>[]>(reads: R): Promise<ReadValues<R>> {
    await this.flushFirst();
    await this.flushDeferred();
    const riders = this.riders.splice(0);
    const clock = this.ctx.deviceClock;
    if (!clock.wantsReading) return (await runReads(this.device, [...riders, ...reads])).slice(riders.length) as ReadValues<R>;
    const before = this.ctx.clock.now();
    const [deviceMs, ...values] = await runReads(this.device, [deviceTimeRead(), ...riders, ...reads]);
    const after = this.ctx.clock.now();
    if (deviceMs !== null) clock.measured(deviceMs, before, after);
    else await this.measureClock();
    return values.slice(riders.length) as ReadValues<R>;
  }

  /**
   * A read that goes out with the next `read` (its result is not kept: a sync marker): no round
   * trip of its own. `sendRiders` sends it on its own when no read came meanwhile.
   */
  rideWithNextRead(read: ShellRead<unknown>): void {
    this.riders.push(read);
  }

  /** Sends the reads still waiting for a read to ride with (rideWithNextRead), if any. */
  async sendRiders(): Promise<void> {
    const riders = this.riders.splice(0);
    if (riders.length > 0) await runReads(this.device, riders);
  }

  /** `date` on its own (with readDeviceTimeMs's fallback for a toybox without %N). */
  private async measureClock(): Promise<number> {
    const before = this.ctx.clock.now();
    const now = await readDeviceTimeMs(this.device);
    this.ctx.deviceClock.measured(now, before, this.ctx.clock.now());
    return now;
  }

  /**
   * About one round trip to the device: the shortest of the last shell commands' durations
   * (undefined before any finished). A wait for the device sized by it fits the link.
   */
  roundTripMs(): number | undefined {
    const durations = this.recorder.records
      .slice(-RECENT_COMMANDS)
      .flatMap((r) => (r.via === 'shell' && r.finished && r.durationMs !== undefined && r.error === undefined ? [r.durationMs] : []));
    return durations.length > 0 ? Math.min(...durations) : undefined;
  }

  /** How many commands that change the device (command-log.ts) the harness has sent so far. */
  changesSent(): number {
    const records = this.recorder.records;
    for (; this.scannedRecords < records.length; this.scannedRecords++) {
      if (!isReadOnlyCommand(records[this.scannedRecords]!)) this.changeCount++;
    }
    return this.changeCount;
  }

  /** What has happened up to now (commands that change the device, the app's requests), for a read taken now. */
  mark(): { changes: number; journal: number } {
    return { changes: this.changesSent(), journal: this.ctx.server.journal().length };
  }

  /** Whether nothing can have changed a read taken at `changes` commands and `journal` requests. */
  stillHolds(read: { readonly changes: number; readonly journal: number }): boolean {
    return read.changes === this.changesSent() && read.journal === this.ctx.server.journal().length;
  }

  /** Records a step of the harness that is not one device command (those record themselves). */
  action(action: string, fields: { detail?: string; outcome?: HistoryRunOutcome; statuses?: readonly number[]; evidence?: readonly string[] } = {}): void {
    this.record({
      type: 'action',
      t: this.deviceTimeEstimate(),
      action,
      ...(fields.outcome !== undefined ? { outcome: fields.outcome } : {}),
      ...(fields.statuses !== undefined ? { statuses: [...fields.statuses] } : {}),
      ...(fields.detail !== undefined ? { detail: fields.detail } : {}),
      ...(fields.evidence !== undefined && fields.evidence.length > 0 ? { evidence: [...fields.evidence] } : {}),
    });
  }

  // ---------------------------------------------------------------- clock

  /** The device time now: host clock + the offset measured with earlier reads, or one `date` before the first. */
  async deviceNow(): Promise<number> {
    const known = this.ctx.deviceClock.now();
    if (known !== undefined) return known;
    await this.read([]);
    return this.deviceTimeEstimate();
  }

  private setTimeLabel(ms: number): ActionLabel {
    return { action: 'set-time', detail: `clock to ${new Date(ms).toISOString()}` };
  }

  /**
   * Sends the set of the clock that waits for the next change (DeviceClock.willSet) on its own.
   * While it goes out the device time is still reckoned from it, so its event carries the time it
   * sets, as the events timed while it waited do.
   */
  private async flushPendingClock(): Promise<void> {
    const clock = this.ctx.deviceClock;
    if (!clock.hasPendingSet) return;
    const to = clock.now()!;
    const before = this.ctx.clock.now();
    let method: SetTimeMethod;
    try {
      method = await this.labels.run(this.setTimeLabel(to), () => setDeviceTime(this.device, to));
    } finally {
      clock.takePendingSet();
      this.flushCommands();
    }
    clock.wasSet(to, before, this.ctx.clock.now(), method);
  }

  private async setClock(ms: number): Promise<void> {
    // A set that still waited is superseded by this one.
    this.ctx.deviceClock.takePendingSet();
    const before = this.ctx.clock.now();
    const method = await this.act(this.setTimeLabel(ms), () => setDeviceTime(this.device, ms));
    this.ctx.deviceClock.wasSet(ms, before, this.ctx.clock.now(), method);
  }

  /**
   * Moves the device clock to `ms`: unless `cmd alarm set-time` is known not to set this device's
   * clock (it failed once and the clock is set the other way, `root-date`), the set waits for the
   * next command that changes the device and goes first in the same shell invocation
   * (actInSequence), or just before it (act); until then the device time is reckoned from the set
   * (DeviceClock.willSet). The first set of a session goes that way too: `cmd alarm set-time`
   * exits non-zero where it cannot set the clock (`cmd` exits with the service's result, -1 for a
   * failed or unknown shell command, and 20 for a service it cannot find: LineageOS/
   * android_frameworks_native @0d0326fd cmds/cmd/cmd.cpp, `return 20`, `return res`), so nothing
   * after it runs and actInSequence sets the clock the other way, then sends the rest. Otherwise
   * it is sent now.
   */
  async moveClock(ms: number): Promise<void> {
    if (this.ctx.deviceClock.setWith !== 'root-date') this.ctx.deviceClock.willSet(ms, this.ctx.clock.now());
    else await this.setClock(ms);
  }
}

/** What a read sent first (DeviceSteps.readFirst) gave: its value, or why there is none. */
export type FirstReadResult<T = unknown> = { readonly value: T } | { readonly error: unknown };

/** Each read's value (or error) from `results`, the results of every read's commands in order. */
async function deliverFirst(first: readonly { readonly read: ShellRead<unknown>; readonly took: (result: FirstReadResult) => void }[], results: readonly ShellResult[]): Promise<void> {
  let at = 0;
  for (const f of first) {
    const mine = results.slice(at, at + f.read.commands.length);
    at += f.read.commands.length;
    if (mine.length < f.read.commands.length) {
      f.took({ error: new DedupVerifyError(ErrorCode.Internal, 'the read was not run: a command before it in its invocation failed') });
      continue;
    }
    try {
      f.took({ value: await f.read.parse(mine) });
    } catch (e) {
      f.took({ error: e });
    }
  }
}

/** Backoff between polls of a device state that has no event (job registration). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
