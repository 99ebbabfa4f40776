/**
 * The checker (docs/design.md §5): a pure function of the history. It imports nothing that does I/O.
 *
 * It reads the events once, in file order, and keeps one small record per distinct item (its
 * latest publication and the state of its current epoch) plus the runs in progress, so memory
 * is bounded by the number of distinct items, not by the number of events.
 *
 * Readings of docs/design.md §5 made precise here:
 * - Runs are numbered in start order (the recorder numbers them 1, 2, 3, ...): "a later run" is
 *   a greater run number. A `run-started` whose number is not greater than every run started
 *   before makes the history inconsistent (verdict unknown). Events of a run that never
 *   started are accepted; that run's `now` is the `t` of its `fetched` event.
 * - A run serves items only through a 2xx `fetched` response; the items of other responses
 *   were not processed by the app.
 * - An item fetched inside the window becomes eligible once the run *handled* it: the run
 *   notified it (post or update), stored its row, or the OS shed its post (the app called
 *   notify), or the run finished `success`, `retry` or `failure` (the app went through the whole
 *   feed). A run that ended `killed` or `refused`, or never finished before the history ended,
 *   makes eligible only the items it handled: the rest were never looked at. Within a run the
 *   order of `fetched` and `notified`/`stored` events does not matter. Eligibility is credited to
 *   the item's epoch at the moment of handling (or of the run's finish).
 * - Notified, for `lost`, `unexpected` and `recovered`, means a post or an update (an update is
 *   how Android logs a re-post of a notification still showing); only posts count for
 *   `out-of-order`.
 * - Duplicated: after an item's first notification in an epoch, every further `notify()` is a
 *   repeat: a post, and an update of a notification still showing unless it carries
 *   FLAG_ONLY_ALERT_ONCE (`alertOnce`). Android alerts the user again on such an update:
 *   NotificationManagerService.buzzBeepBlinkLocked sounds and vibrates unless
 *   shouldMuteNotificationLocked(record) holds, and the only update-specific mute there is
 *   `if (record.isUpdate && (notification.flags & FLAG_ONLY_ALERT_ONCE) != 0) return true;`
 *   ("Suppressed because it's a silent update"), the same in Android 11, 13 and 14
 *   (frameworks/base services/core/java/com/android/server/notification/
 *   NotificationManagerService.java; from Android 15 in NotificationAttentionHelper.java).
 *   `isUpdate` is set only while the old notification is still in mNotificationList
 *   (PostNotificationRunnable.run), which is when the event log says status 1 (update); a
 *   post after the user dismissed it alerts whatever its flags.
 *   A silent update is reported as the informational `silent-repost`.
 * - Tolerated: a repeat is judged when it happens, against the item's previous notification:
 *   it is tolerated only when that notification came in an earlier run that ended `killed`
 *   before the item was `stored` (no `stored` of the item from that notification's run on), and
 *   that killed run excuses fewer than `allowedDuplicates` other items. So a run that repeats an
 *   item it notified itself fails, a repeat after a run that finished normally fails, a repeat
 *   after a kill that came after the row was written fails, and a second item repeated after
 *   the same kill fails (rows written late, after the notify loop). The first repeated items, in
 *   history order, take the excuse. An item-epoch with at least one repeat is `duplicated`; it is
 *   `tolerated` when every one of its repeats was excused.
 * - An eligible item that was never notified but was shed by the OS is `os-shed`, not `lost`.
 *   A `shed` with item "" is a post the OS refused without naming it (the 50-notification cap
 *   logs only the package): it excuses an item that run stored (or skipped) without a
 *   notification. When a run has fewer unnamed sheds than such items, the sheds cannot explain
 *   them all, so at least one was lost: each is then reported `lost`, with the shed count.
 *   `os-shed`, `recovered` and tolerated duplicates are informational.
 * - A `refused` run makes the verdict unknown (unless something fails).
 * - Events must be in the order they happened (a run's notifications before its
 *   `run-finished`); `t` is kept for evidence but not used to reorder.
 */
import type { FeedPlace, FetchErrorCause, HistoryEvent, NotifiedEvent, RunFinishedEvent, RunOutcome } from '../history/events.js';
import { formatDuration, formatInstant, formatRuns, joinWords, times } from './describe.js';
import { effectOf } from './kinds.js';
import { emptyCounts, type Anomaly, type CheckCounts, type CheckOptions, type CheckResult, type Verdict } from './types.js';

const MAX_EVIDENCE_PER_ITEM = 8;
/** Reasons spelled out in one duplicated anomaly's detail; the rest are counted. */
const MAX_REASONS = 3;

/** Report order of the notification checker's kinds (others after them). */
const KIND_RANK: Readonly<Record<string, number>> = {
  aborted: 0,
  'unparsed-line': 0,
  'refused-run': 1,
  'unfinished-run': 1,
  'no-fetch': 1,
  lost: 2,
  duplicated: 3,
  unexpected: 4,
  'out-of-order': 5,
  'silent-repost': 6,
  'os-shed': 7,
  recovered: 8,
};

/** One repeat of an item, judged when it happened. */
interface Repeat {
  readonly run: number;
  /** The killed run that excuses it; undefined: nothing does. */
  readonly excusedBy: number | undefined;
  /** Why it is tolerated, or why no kill excuses it. */
  readonly why: string;
}

/** The state of one item in its current epoch. */
interface EpochState {
  readonly epoch: number;
  /** Served in a 2xx response in this epoch. */
  served: boolean;
  /** The last time a run fetched it outside the window (reason for `unexpected`). */
  outside: { run: number; ageMs: number } | undefined;
  /** First run in which it became eligible. */
  eligibleRun: number | undefined;
  /** notify() calls in this epoch (posts and updates, silent ones included). */
  notifies: number;
  /** The runs of the notifications that alerted (every one but silent updates), in order. */
  alertRuns: number[] | undefined;
  /** Repeats: alerting notifications after the first notification. */
  repeats: Repeat[] | undefined;
  /** Silent updates (FLAG_ONLY_ALERT_ONCE) after the first notification, by run. */
  silentRuns: number[] | undefined;
  firstNotifiedRun: number | undefined;
  /** The run of the latest notification, and how it ended (undefined until it has). */
  lastNotifyRun: number | undefined;
  lastNotifyOutcome: RunOutcome | undefined;
  /** A row was stored from the latest notification's run on. */
  storedSinceNotify: boolean;
  lastStoredRun: number | undefined;
  shed: number;
  shedRun: number | undefined;
  /** First run with unnamed sheds that stored or skipped the item without notifying it. */
  shedSuspectRun: number | undefined;
  evidence: string[] | undefined;
  /** The last run that made it eligible. */
  lastCreditRun: number | undefined;
  /** A run that made it eligible ended success or killed (retry and failure promise another run). */
  decisive: boolean;
  /** A killed newest-first run posted a newer item of the same response first: it owed this one. */
  stranded: { run: number; by: string; byPublishedAt: number } | undefined;
}

interface ItemRecord {
  readonly key: string;
  /** First-seen order, for a stable anomaly order. */
  readonly seq: number;
  published: boolean;
  publishedAt: number;
  title: string;
  /** `forgotten` events naming this item (the "all" ones are counted globally). */
  forgets: number;
  state: EpochState | undefined;
}

interface RunState {
  readonly run: number;
  /** The device clock at run start, when known. */
  deviceTime: number | undefined;
  /** Opened by an event of a run that had not started (yet). */
  implicit: boolean;
  /** Items fetched inside the window and not yet credited as eligible. */
  readonly candidates: Set<string>;
  /** Items this run notified, stored or had shed (by name). */
  readonly handled: Set<string>;
  /** Items this run notified (post or update). */
  readonly notified: Set<string>;
  /** Posts the OS refused in this run without naming the item. */
  unnamedSheds: number;
  lastPost: { item: string; publishedAt: number } | undefined;
  /** Posts of the run in order (items with a date): what a killed run overtook older items with. */
  readonly posts: { item: string; publishedAt: number }[];
  /** Items this run made eligible while it ran (decisive or not once its outcome is known). */
  readonly credited: Set<string>;
  /** A `fetched` event (any status) of this run: the app's request reached the feed. */
  fetched: boolean;
  /** Requests of this run to other paths than the feed's (`GET /x → 404`), the first few. */
  readonly otherRequests: string[];
  /** Started after a `clear-app-data` and before the `attach` that points the app at the feed again. */
  beforeAttach: boolean;
}

/** Requests to other paths kept per run for a no-fetch anomaly. */
const MAX_OTHER_REQUESTS = 3;

/**
 * What a fetch error means and the fix it names. The messages are the ones a real app's stack
 * throws (the harness recognises them in logcat: src/android/parsers/fetch-errors.ts).
 */
const FETCH_ERROR_FIX: Readonly<Record<FetchErrorCause, string>> = {
  'connection-refused': 'nothing listened where the app connected: check feed.devicePort (the device port the app fetches from; adb reverse forwards only that one)',
  'cleartext-not-permitted':
    "the app's network security config refuses cleartext HTTP to that host: permit cleartext to 127.0.0.1 and localhost in the build under test (res/xml/network_security_config.xml), then check feed.devicePort",
  'unknown-host': 'the host the app fetches from does not resolve on the device: the build under test must fetch the feed from 127.0.0.1 or localhost on feed.devicePort (adb reverse forwards only the device loopback)',
  timeout: 'the connection timed out: check feed.devicePort, and that nothing else on the device holds that port',
};

/** The feed's URL as the device reaches it through `adb reverse`. */
export function feedUrl(feed: FeedPlace): string {
  return `http://127.0.0.1:${feed.devicePort}${feed.path}`;
}

/** An item that would be lost, but a run that handled it had unnamed sheds. */
interface ShedSuspect {
  item: string;
  seq: number;
  epoch: number;
  eligibleRun: number;
  lostDetail: string;
}

interface SortedAnomaly {
  anomaly: Anomaly;
  a: number;
  b: number;
}

/** Thrown for a history the checker cannot make sense of; turned into verdict unknown. */
class InconsistentHistory extends Error {}

/** The incremental checker: feed events with `add`, then `finish` once. */
export interface Checker {
  add(event: HistoryEvent): void;
  finish(): CheckResult;
}

function isOk(status: number): boolean {
  return status >= 200 && status <= 299;
}

function isNormalFinish(outcome: RunOutcome): boolean {
  switch (outcome) {
    case 'success':
    case 'retry':
    case 'failure':
    case 'finished':
      return true;
    case 'killed':
    case 'refused':
      return false;
    default: {
      const unreachable: never = outcome;
      throw new InconsistentHistory(`unknown run outcome ${String(unreachable)}`);
    }
  }
}

function checkOptions(options: CheckOptions): string | undefined {
  if (typeof options.windowMs !== 'number' || !Number.isFinite(options.windowMs) || options.windowMs <= 0) {
    return `windowMs must be a positive number of ms, got ${String(options.windowMs)}`;
  }
  if (!Number.isSafeInteger(options.allowedDuplicates) || options.allowedDuplicates < 0) {
    return `allowedDuplicates must be a whole number >= 0, got ${String(options.allowedDuplicates)}`;
  }
  return undefined;
}

class HistoryChecker implements Checker {
  private readonly items = new Map<string, ItemRecord>();
  private readonly active = new Map<number, RunState>();
  private readonly counts: CheckCounts = emptyCounts();
  private readonly anomalies: SortedAnomaly[] = [];
  private globalForgets = 0;
  /** `attach` action events seen (feed.attach pointed the app at the feed): a run that fetched nothing points there. */
  private attached = false;
  /** A `clear-app-data` since the last `attach` of an attached app: the app has no feed until the next attach. */
  private detached = false;
  private lastStartedRun = -1;
  private events = 0;
  /** Killed runs that excuse a repeat: the items they excuse, in order. */
  private readonly excuses = new Map<number, string[]>();
  /** notification_enqueue lines that did not parse (`unparsed` events). */
  private unparsedLines = 0;
  /** The greatest run number any event named. */
  private maxRun = -1;
  /** How each finished run ended (undefined: the history ends inside it). */
  private readonly outcomes = new Map<number, RunOutcome | undefined>();
  /** Runs that had unnamed sheds: how many (-1: sheds that named neither item nor run). */
  private readonly unnamedSheds = new Map<number, number>();
  private readonly shedSuspects = new Map<number, ShedSuspect[]>();
  private error: string | undefined;
  private finished = false;

  constructor(private readonly options: CheckOptions) {
    this.error = checkOptions(options);
  }

  add(event: HistoryEvent): void {
    if (this.error !== undefined) return;
    if (this.finished) {
      this.error = 'an event was added after finish()';
      return;
    }
    this.events += 1;
    try {
      this.apply(event);
    } catch (e) {
      this.error = e instanceof InconsistentHistory
        ? `history is inconsistent at event #${this.events}: ${e.message}`
        : `checker failed at event #${this.events}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  finish(): CheckResult {
    if (this.error === undefined && !this.finished) {
      try {
        // Runs the history ends in count like killed ones: only what they handled, and what they
        // made eligible is undecided (the rest of the run is not in the history).
        for (const run of this.active.values()) {
          this.reportUnfinished(run.run);
          this.finishRun(run, undefined);
        }
        this.active.clear();
        for (const rec of this.items.values()) {
          if (rec.state) this.closeEpoch(rec, rec.state);
          rec.state = undefined;
        }
        this.resolveShedSuspects();
      } catch (e) {
        this.error = `checker failed while finishing: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    this.finished = true;
    if (this.error !== undefined) {
      return { verdict: 'unknown', counts: emptyCounts(), anomalies: [], error: this.error };
    }
    if (this.unparsedLines > 0) {
      // Each unparsed line may be the notification of an item that looks lost.
      for (const s of this.anomalies) {
        if (s.anomaly.kind !== 'lost') continue;
        s.anomaly = {
          ...s.anomaly,
          undecided: true,
          detail: `${s.anomaly.detail}; but ${this.unparsedLines} notification_enqueue line(s) did not parse, so it may have been notified: undecided`,
        };
      }
    }
    const rank = (kind: string): number => KIND_RANK[kind] ?? Number.MAX_SAFE_INTEGER;
    const sorted = [...this.anomalies].sort((x, y) =>
      rank(x.anomaly.kind) - rank(y.anomaly.kind) || x.a - y.a || x.b - y.b);
    return { verdict: this.verdict(), counts: { ...this.counts }, anomalies: sorted.map((s) => s.anomaly) };
  }

  private verdict(): Verdict {
    return verdictOf(this.anomalies.map((s) => s.anomaly));
  }

  private apply(event: HistoryEvent): void {
    switch (event.type) {
      case 'config':
        return;
      case 'published': {
        const rec = this.item(event.item);
        rec.published = true;
        rec.publishedAt = event.publishedAt;
        rec.title = event.title;
        return;
      }
      case 'run-started': {
        const implicit = this.active.get(event.run);
        if (event.run <= this.lastStartedRun || (implicit && !implicit.implicit)) {
          throw new InconsistentHistory(
            `run ${event.run} started after run ${this.lastStartedRun}; runs must be numbered in start order, each started once`);
        }
        this.lastStartedRun = event.run;
        this.maxRun = Math.max(this.maxRun, event.run);
        if (implicit) {
          // Events of this run came before its run-started: keep them, use its clock from now on.
          implicit.deviceTime = event.deviceTime;
          implicit.implicit = false;
          implicit.beforeAttach = this.detached;
        } else {
          this.active.set(event.run, { ...newRun(event.run, event.deviceTime, false), beforeAttach: this.detached });
        }
        return;
      }
      case 'fetched': {
        const run = this.runFor(event.run);
        if (run) run.fetched = true;
        if (!isOk(event.status)) return;
        const now = run?.deviceTime ?? event.t;
        for (const key of event.items) {
          const rec = this.item(key);
          const state = this.stateOf(rec);
          state.served = true;
          if (key === '' || !rec.published || rec.publishedAt <= 0) continue;
          const ageMs = now - rec.publishedAt;
          if (ageMs <= this.options.windowMs) {
            // A fetch recorded after its run finished cannot be handled any more: not eligible.
            if (run?.handled.has(key) === true) this.creditIn(run, rec);
            else run?.candidates.add(key);
          } else {
            state.outside = { run: event.run, ageMs };
          }
        }
        return;
      }
      case 'notified': {
        const rec = this.item(event.item);
        const run = this.runFor(event.run);
        this.handle(run, rec);
        run?.notified.add(event.item);
        const state = this.stateOf(rec);
        this.counts.notifiedCount += 1;
        state.firstNotifiedRun ??= event.run;
        if (event.evidence && event.evidence.length > 0) {
          const evidence = (state.evidence ??= []);
          for (const line of event.evidence) if (evidence.length < MAX_EVIDENCE_PER_ITEM) evidence.push(line);
        }
        this.notify(rec, state, event);
        if (event.status === 'update') return;
        if (run && rec.published && rec.publishedAt > 0) {
          const previous = run.lastPost;
          if (previous && rec.publishedAt < previous.publishedAt) this.reportOutOfOrder(rec, event.run, previous, event.evidence);
          run.lastPost = { item: rec.key, publishedAt: rec.publishedAt };
          run.posts.push(run.lastPost);
        }
        return;
      }
      case 'stored': {
        const rec = this.item(event.item);
        this.handle(this.runFor(event.run), rec);
        const state = this.stateOf(rec);
        state.lastStoredRun = event.run;
        if (state.lastNotifyRun !== undefined && event.run >= state.lastNotifyRun) state.storedSinceNotify = true;
        return;
      }
      case 'run-finished': {
        const run = this.runFor(event.run);
        if (event.outcome === 'refused') this.reportRefused(event.run, event.evidence);
        if (!run) return;
        if (isNormalFinish(event.outcome) && !run.fetched) this.reportNoFetch(run, event);
        this.finishRun(run, event.outcome);
        this.active.delete(event.run);
        return;
      }
      case 'aborted': {
        this.push({
          kind: 'aborted',
          item: '',
          detail: `the harness stopped part-way (${event.detail}): the history is incomplete, so it cannot show what the app would have done`,
          ...(event.evidence && event.evidence.length > 0 ? { evidence: [...event.evidence] } : {}),
        }, -1, this.events);
        return;
      }
      case 'unparsed': {
        this.unparsedLines += 1;
        this.push({
          kind: 'unparsed-line',
          item: '',
          ...(event.run !== undefined ? { run: event.run } : {}),
          detail: `a ${event.tag} line${event.run !== undefined ? ` of run ${event.run}` : ''} did not parse: the notification it records is missing from the history, so the verdict cannot rest on it (a new image's format?)`,
          evidence: [event.line],
        }, -1, this.events);
        return;
      }
      case 'request': {
        if (event.route === 'feed' || event.run === undefined) return;
        const run = this.active.get(event.run);
        if (run && run.otherRequests.length < MAX_OTHER_REQUESTS) run.otherRequests.push(`${event.method} ${event.path} → ${event.dropped === true ? 'dropped' : event.status}`);
        return;
      }
      case 'action':
        if (event.action === 'attach') {
          this.attached = true;
          this.detached = false;
        } else if (event.action === 'clear-app-data' && this.attached) this.detached = true;
        // Otherwise read by the property checks (src/checker/properties), not by the notification checks.
        return;
      case 'effect':
      case 'rows':
      case 'schedule':
      case 'schema':
        // Read by the property checks (src/checker/properties), not by the notification checks.
        return;
      case 'system-summary':
        // Android's own post in the app's name (an autogroup summary): no item, nothing to check.
        return;
      case 'not-an-item':
        // The app's post that is no item (a group summary, an ongoing or foreground-service post,
        // a post on another channel): informational, never lost, duplicated or unexpected.
        return;
      case 'forgotten': {
        if (event.items === 'all') this.globalForgets += 1;
        else for (const key of new Set(event.items)) this.item(key).forgets += 1;
        return;
      }
      case 'shed': {
        const run = event.run !== undefined ? this.runFor(event.run) : undefined;
        if (event.item === '') {
          // The OS did not name the post it refused.
          if (run) run.unnamedSheds += 1;
          else {
            const bucket = event.run ?? -1;
            this.unnamedSheds.set(bucket, (this.unnamedSheds.get(bucket) ?? 0) + 1);
          }
          return;
        }
        const rec = this.item(event.item);
        this.handle(run, rec);
        const state = this.stateOf(rec);
        state.shed += 1;
        state.shedRun ??= event.run;
        return;
      }
      default: {
        const unreachable: never = event;
        throw new InconsistentHistory(`unknown event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** The active run, opening one implicitly for events of a run that never started. */
  private runFor(runNumber: number): RunState | undefined {
    this.maxRun = Math.max(this.maxRun, runNumber);
    const run = this.active.get(runNumber);
    if (run) return run;
    if (runNumber <= this.lastStartedRun) return undefined; // already finished
    const implicit = newRun(runNumber, undefined, true);
    this.active.set(runNumber, implicit);
    return implicit;
  }

  private item(key: string): ItemRecord {
    let rec = this.items.get(key);
    if (!rec) {
      rec = { key, seq: this.items.size, published: false, publishedAt: 0, title: '', forgets: 0, state: undefined };
      this.items.set(key, rec);
    }
    return rec;
  }

  /** The item's state in its current epoch, closing the previous epoch when a `forgotten` moved it. */
  private stateOf(rec: ItemRecord): EpochState {
    const epoch = this.globalForgets + rec.forgets;
    if (rec.state && rec.state.epoch !== epoch) {
      this.closeEpoch(rec, rec.state);
      rec.state = undefined;
    }
    rec.state ??= {
      epoch,
      served: false,
      outside: undefined,
      eligibleRun: undefined,
      notifies: 0,
      alertRuns: undefined,
      repeats: undefined,
      silentRuns: undefined,
      firstNotifiedRun: undefined,
      lastNotifyRun: undefined,
      lastNotifyOutcome: undefined,
      storedSinceNotify: false,
      lastStoredRun: undefined,
      shed: 0,
      shedRun: undefined,
      shedSuspectRun: undefined,
      evidence: undefined,
      lastCreditRun: undefined,
      decisive: false,
      stranded: undefined,
    };
    return rec.state;
  }

  /** The run notified, stored or had shed this item: eligible if the run fetched it in the window. */
  private handle(run: RunState | undefined, rec: ItemRecord): void {
    if (!run) return;
    run.handled.add(rec.key);
    if (run.candidates.delete(rec.key)) this.creditIn(run, rec);
  }

  /**
   * An item's notification: the first of its epoch, or a repeat judged against the previous
   * one, or a silent update.
   */
  private notify(rec: ItemRecord, state: EpochState, event: NotifiedEvent): void {
    const previousRun = state.lastNotifyRun;
    const silent = event.status === 'update' && event.alertOnce === true;
    if (state.notifies > 0 && silent) {
      (state.silentRuns ??= []).push(event.run);
    } else {
      (state.alertRuns ??= []).push(event.run);
      if (state.notifies > 0 && previousRun !== undefined) (state.repeats ??= []).push(this.judgeRepeat(rec.key, state, event.run, previousRun));
    }
    state.notifies += 1;
    if (previousRun !== event.run) {
      state.lastNotifyRun = event.run;
      state.lastNotifyOutcome = undefined;
      // A row stored earlier in this same run (record before notify) counts as stored.
      state.storedSinceNotify = state.lastStoredRun === event.run;
    }
  }

  /** Whether a kill excuses this repeat (DESIGN's "tolerated"), and why or why not. */
  private judgeRepeat(key: string, state: EpochState, run: number, previousRun: number): Repeat {
    const none = (why: string): Repeat => ({ run, excusedBy: undefined, why });
    if (previousRun === run) return none(`run ${run} notified it twice: a run must notify an item once`);
    const outcome = state.lastNotifyOutcome;
    if (outcome !== 'killed') {
      return none(outcome === undefined
        ? `run ${previousRun}, which notified it before, had not ended when run ${run} repeated it, so no kill excuses the repeat`
        : `run ${previousRun}, which notified it before, ended ${outcome}, not killed: the app should have found its row in run ${run}`);
    }
    if (state.storedSinceNotify) {
      return none(`run ${previousRun} was killed only after it stored the item's row, so run ${run} should have found the row`);
    }
    const allowed = this.options.allowedDuplicates;
    if (allowed === 0) return none(`run ${previousRun} was killed before storing it, but allowedDuplicates is 0: no repeat is tolerated`);
    const excused = this.excuses.get(previousRun) ?? [];
    if (excused.length >= allowed) {
      return none(
        `run ${previousRun} was killed before storing it, but that kill already excuses ${joinWords(excused)} (allowedDuplicates ${allowed} per killed run): ` +
          'more items repeated after one kill means the rows are written late, not right after each notification',
      );
    }
    excused.push(key);
    this.excuses.set(previousRun, excused);
    return { run, excusedBy: previousRun, why: `run ${previousRun} ended killed after notifying it and before storing its row (the notify-then-record window)` };
  }

  /** Credits what a normally finished run went through, and notes items unnamed sheds may explain. */
  private finishRun(run: RunState, outcome: RunOutcome | undefined): void {
    this.outcomes.set(run.run, outcome);
    for (const key of run.notified) {
      const state = this.stateOf(this.item(key));
      if (state.lastNotifyRun === run.run) state.lastNotifyOutcome = outcome;
    }
    if (outcome === 'killed') this.creditStranded(run);
    const decisive = outcome === 'success' || outcome === 'killed';
    if (decisive) for (const key of run.credited) this.stateOf(this.item(key)).decisive = true;
    const normal = outcome !== undefined && isNormalFinish(outcome);
    const skipped = normal ? [...run.candidates] : [];
    for (const key of skipped) {
      const rec = this.item(key);
      this.credit(rec, run.run);
      if (decisive) this.stateOf(rec).decisive = true;
    }
    if (run.unnamedSheds === 0) return;
    this.unnamedSheds.set(run.run, (this.unnamedSheds.get(run.run) ?? 0) + run.unnamedSheds);
    for (const key of [...run.handled, ...skipped]) {
      if (run.notified.has(key)) continue;
      const state = this.stateOf(this.item(key));
      state.shedSuspectRun ??= run.run;
    }
  }

  /**
   * The stranding trap (docs/sources/000: "Sort newest-first and an interruption strands the
   * oldest items right at the far edge of the window, where they may age out before the retry"):
   * a killed run that posted an item while an older item of the same 2xx response was inside the
   * window, and neither notified nor stored in its epoch, owed that older item: it is eligible
   * from this run on, whatever the later runs see of it.
   */
  private creditStranded(run: RunState): void {
    if (run.posts.length === 0) return;
    for (const key of [...run.candidates]) {
      const rec = this.item(key);
      const by = run.posts.find((p) => p.publishedAt > rec.publishedAt);
      if (!by) continue;
      const state = this.stateOf(rec);
      if (state.notifies > 0 || state.lastStoredRun !== undefined) continue;
      run.candidates.delete(key);
      this.credit(rec, run.run);
      state.decisive = true;
      state.stranded ??= { run: run.run, by: by.item, byPublishedAt: by.publishedAt };
    }
  }

  /** Eligible through what a run in progress did with it; decided when the run's end is known. */
  private creditIn(run: RunState, rec: ItemRecord): void {
    this.credit(rec, run.run);
    run.credited.add(rec.key);
  }

  private credit(rec: ItemRecord, run: number): void {
    const state = this.stateOf(rec);
    state.eligibleRun ??= run;
    state.lastCreditRun = Math.max(state.lastCreditRun ?? run, run);
  }

  private push(anomaly: Anomaly, a: number, b: number): void {
    this.anomalies.push({ anomaly, a, b });
  }

  private closeEpoch(rec: ItemRecord, s: EpochState): void {
    const eligible = s.eligibleRun !== undefined;
    const notified = s.notifies > 0;
    const { key } = rec;
    const base = { item: key, epoch: s.epoch };
    if (eligible) this.counts.eligibleCount += 1;

    if (s.shed > 0) {
      this.counts.shedCount += 1;
      this.push({
        kind: 'os-shed',
        ...base,
        ...(s.shedRun !== undefined ? { run: s.shedRun } : {}),
        detail: `the OS refused to post it ${times(s.shed)}${s.shedRun !== undefined ? ` (first in run ${s.shedRun})` : ''} in epoch ${s.epoch}: notification cap or rate limit, not an app bug${eligible && !notified ? '; not counted as lost' : ''}`,
      }, rec.seq, s.epoch);
    }

    if (eligible && !notified && s.shed === 0 && s.eligibleRun !== undefined) {
      const lostDetail = s.stranded
        ? this.strandedDetail(rec, s, s.stranded)
        : `never notified in epoch ${s.epoch}, although eligible from run ${s.eligibleRun} on (${this.describeItem(rec)})`;
      const pending = this.pendingRetry(s);
      if (s.shedSuspectRun !== undefined) {
        const suspects = this.shedSuspects.get(s.shedSuspectRun) ?? [];
        suspects.push({ item: key, seq: rec.seq, epoch: s.epoch, eligibleRun: s.eligibleRun, lostDetail });
        this.shedSuspects.set(s.shedSuspectRun, suspects);
      } else {
        this.counts.lostCount += 1;
        this.push({
          kind: 'lost', ...base, run: s.eligibleRun,
          ...(pending !== undefined ? { undecided: true, detail: `${lostDetail}; ${pending}` } : { detail: lostDetail }),
          ...(s.stranded ? { runs: [s.stranded.run] } : {}),
        }, rec.seq, s.epoch);
      }
    }

    if (s.repeats && s.alertRuns) {
      this.counts.duplicatedCount += 1;
      const failing = s.repeats.filter((r) => r.excusedBy === undefined);
      const tolerated = failing.length === 0;
      const shown = tolerated ? s.repeats : failing;
      const distinct = [...new Set(shown.map((r) => r.why))];
      const reasons = distinct.length <= MAX_REASONS
        ? distinct.join('; ')
        : `${distinct.slice(0, MAX_REASONS).join('; ')}; and ${distinct.length - MAX_REASONS} more repeat(s) ${tolerated ? 'excused the same way' : 'no kill excuses'}`;
      const excusedBy = s.repeats.at(-1)?.excusedBy;
      this.push({
        kind: 'duplicated',
        ...base,
        runs: [...new Set(s.alertRuns)],
        detail: `notified ${times(s.alertRuns.length)} in epoch ${s.epoch}: ${formatRuns(s.alertRuns)}; ${tolerated ? `tolerated: ${reasons}` : reasons}`,
        ...(tolerated ? { tolerated: true, ...(excusedBy !== undefined ? { excusedBy } : {}) } : {}),
        ...(s.evidence ? { evidence: [...s.evidence] } : {}),
      }, rec.seq, s.epoch);
    }

    if (s.silentRuns) {
      this.push({
        kind: 'silent-repost',
        ...base,
        runs: [...new Set([...(s.firstNotifiedRun !== undefined ? [s.firstNotifiedRun] : []), ...s.silentRuns])],
        detail: `updated ${times(s.silentRuns.length)} in epoch ${s.epoch} after its first notification (${formatRuns(s.silentRuns)}) with FLAG_ONLY_ALERT_ONCE: the user is not alerted again`,
      }, rec.seq, s.epoch);
    }

    if (notified && !eligible) {
      this.counts.unexpectedCount += 1;
      this.push({
        kind: 'unexpected',
        ...base,
        ...(s.firstNotifiedRun !== undefined ? { run: s.firstNotifiedRun } : {}),
        detail: `notified in run ${String(s.firstNotifiedRun)} but never eligible in epoch ${s.epoch}: ${this.whyNotEligible(rec, s)}`,
        ...(s.evidence ? { evidence: [...s.evidence] } : {}),
      }, rec.seq, s.epoch);
    }

    if (notified && s.eligibleRun !== undefined && s.firstNotifiedRun !== undefined && s.firstNotifiedRun > s.eligibleRun) {
      this.counts.recoveredCount += 1;
      this.push({
        kind: 'recovered',
        ...base,
        run: s.firstNotifiedRun,
        runs: [s.eligibleRun, s.firstNotifiedRun],
        detail: `eligible from run ${s.eligibleRun} but first notified in run ${s.firstNotifiedRun} (epoch ${s.epoch})`,
      }, rec.seq, s.epoch);
    }
  }

  /**
   * Items a run stored or skipped without a notification while the OS refused posts without
   * naming them: os-shed when the sheds can explain them all, lost otherwise.
   */
  private resolveShedSuspects(): void {
    for (const [run, k] of this.unnamedSheds) {
      const suspects = this.shedSuspects.get(run) ?? [];
      const posts = `${k} ${k === 1 ? 'post' : 'posts'}`;
      const where = run >= 0 ? `in run ${run}` : 'outside any run';
      if (suspects.length === 0) {
        this.counts.shedCount += 1;
        this.push({
          kind: 'os-shed', item: '', ...(run >= 0 ? { run } : {}),
          detail: `the OS refused ${posts} ${where} without naming the item (50-notification cap or rate limit); every item that run handled was notified`,
        }, -1, run);
        continue;
      }
      for (const s of suspects) {
        if (suspects.length <= k) {
          this.counts.shedCount += 1;
          this.push({
            kind: 'os-shed', item: s.item, run, epoch: s.epoch,
            detail: `never notified in epoch ${s.epoch}, but the OS refused ${posts} ${where} without naming the item (50-notification cap or rate limit): counted as os-shed, not lost`,
          }, s.seq, s.epoch);
        } else {
          this.counts.lostCount += 1;
          this.push({
            kind: 'lost', item: s.item, run: s.eligibleRun, epoch: s.epoch,
            detail: `${s.lostDetail}; the OS refused only ${posts} ${where} without naming the item, too few for the ${suspects.length} items that run left unnotified: at least ${suspects.length - k} were lost`,
          }, s.seq, s.epoch);
        }
      }
    }
  }

  /**
   * Why a lost item is undecided: the runs that made it eligible all ended `retry` or `failure`
   * (or the history ends inside them) and no later run is in the history, so the retry the seed
   * promises ("retry the whole fetch on the next run") was never recorded. Undefined: it is lost.
   */
  private pendingRetry(s: EpochState): string | undefined {
    if (s.decisive || s.lastCreditRun === undefined || this.maxRun > s.lastCreditRun) return undefined;
    const outcome = this.outcomes.get(s.lastCreditRun);
    if (outcome === undefined) {
      return `but run ${s.lastCreditRun}, which made it eligible, has no run-finished (the history ends inside it): undecided`;
    }
    return `but the runs that made it eligible ended ${outcome === 'finished' ? 'finished (success or failure, read from the workdb)' : outcome === 'retry' ? 'retry' : 'failure'} and no later run is in the history: the retry that would notify it was not recorded, so it is undecided, not lost`;
  }

  private strandedDetail(rec: ItemRecord, s: EpochState, stranded: NonNullable<EpochState['stranded']>): string {
    const by = this.items.get(stranded.by);
    const aged = s.outside ? `; by run ${s.outside.run} it was ${formatDuration(s.outside.ageMs)} old, outside the ${formatDuration(this.options.windowMs)} window` : '';
    return `never notified in epoch ${s.epoch}: stranded by newest-first processing. Run ${stranded.run} fetched it inside the window (${this.describeItem(rec)}) ` +
      `and posted the newer ${stranded.by}${by ? ` (${this.describeItem(by)})` : ''} before it, then was killed before it came to this one, ` +
      `which it had neither notified nor stored: run ${stranded.run} owed it, and no later run notified it${aged}`;
  }

  private describeItem(rec: ItemRecord): string {
    return `${JSON.stringify(rec.title)}, published ${formatInstant(rec.publishedAt)}`;
  }

  private whyNotEligible(rec: ItemRecord, s: EpochState): string {
    if (rec.key === '') return 'it has no link (empty item key)';
    if (!rec.published) return 'it was never published in the feed';
    if (rec.publishedAt <= 0) return `its date did not parse (publishedAt ${rec.publishedAt})`;
    if (!s.served) return `no run fetched it (in a 2xx response) in epoch ${s.epoch}`;
    if (s.outside) {
      return `it was outside the ${formatDuration(this.options.windowMs)} window when run ${s.outside.run} fetched it (published ${formatInstant(rec.publishedAt)}, ${formatDuration(s.outside.ageMs)} old)`;
    }
    return 'the runs that fetched it inside the window were killed or refused before handling it';
  }

  private reportOutOfOrder(rec: ItemRecord, run: number, previous: { item: string; publishedAt: number }, evidence: string[] | undefined): void {
    this.counts.outOfOrderCount += 1;
    this.push({
      kind: 'out-of-order',
      item: rec.key,
      run,
      detail: `posted in run ${run} after ${previous.item} although published earlier (${formatInstant(rec.publishedAt)} < ${formatInstant(previous.publishedAt)}); a run must post oldest first`,
      ...(this.options.checkOrder === false ? { informational: true } : {}),
      ...(evidence && evidence.length > 0 ? { evidence: [...evidence] } : {}),
    }, run, this.events);
  }

  private reportNoFetch(run: RunState, event: RunFinishedEvent): void {
    const { feed } = this.options;
    if (run.beforeAttach && run.otherRequests.length === 0) {
      // The app's data was cleared and feed.attach had not pointed it at the feed again: it had
      // no feed to fetch. Nothing of the feed was checked in this run, and nothing is undecided.
      this.push({
        kind: 'no-fetch',
        item: '',
        run: run.run,
        detail: `run ${run.run} ended ${event.outcome} without fetching the feed: it ran after the app's data was cleared and before feed.attach pointed the app at the feed again (its \`attach\` actions come after it), so the app had no feed to fetch; the runs after the attach are the ones checked`,
        informational: true,
        ...(event.evidence !== undefined && event.evidence.length > 0 ? { evidence: [...event.evidence] } : {}),
      }, run.run, this.events);
      return;
    }
    const where = feed ? ` served at ${feedUrl(feed)} (feed.devicePort ${feed.devicePort}, feed.path ${feed.path})` : '';
    const asked = run.otherRequests;
    const why = asked.length > 0
      ? `the app asked ${joinWords(asked)}${feed ? `, not ${feed.path}` : ''}: check feed.path (the path the app requests)`
      : event.fetchError
        ? `logcat: "${event.fetchError.line.trim()}"; ${FETCH_ERROR_FIX[event.fetchError.cause]}`
        : this.attached
          ? `no request reached the fixture server and the app logged no fetch error the harness recognises, though feed.attach pointed the app at the feed (its \`attach\` actions): check that feed.attach really subscribes the app to ${feed ? feedUrl(feed) : 'the fixture feed'} (an app with no subscription fetches nothing; an activity that only opens a confirmation screen subscribes to nothing), then feed.devicePort and feed.path`
          : 'no request reached the fixture server and the app logged no fetch error the harness recognises: check feed.devicePort and feed.path against the URL the app fetches';
    const evidence = [...(event.evidence ?? []), ...(event.fetchError ? [event.fetchError.line] : [])];
    this.push({
      kind: 'no-fetch',
      item: '',
      run: run.run,
      detail: `run ${run.run} ended ${event.outcome} without fetching the feed${where}, so it is no sign of life and nothing it did with the feed was checked; ${why}`,
      ...(evidence.length > 0 ? { evidence } : {}),
    }, run.run, this.events);
  }

  private reportUnfinished(run: number): void {
    this.push({
      kind: 'unfinished-run',
      item: '',
      run,
      detail: `run ${run} has no run-finished: the history ends inside it (cut off?), so what it would have notified is not in the history and its items are undecided`,
    }, run, this.events);
  }

  private reportRefused(run: number, evidence: string[] | undefined): void {
    this.push({
      kind: 'refused-run',
      item: '',
      run,
      detail: `run ${run} was refused: the worker did not run, so the history cannot show what it would have notified`,
      ...(evidence && evidence.length > 0 ? { evidence: [...evidence] } : {}),
    }, run, this.events);
  }
}

function newRun(run: number, deviceTime: number | undefined, implicit: boolean): RunState {
  return {
    run, deviceTime, implicit, candidates: new Set(), handled: new Set(), notified: new Set(), unnamedSheds: 0, lastPost: undefined,
    posts: [], credited: new Set(), fetched: false, otherRequests: [], beforeAttach: false,
  };
}

/**
 * The verdict of a list of anomalies: fail when one fails (a `duplicated` that is not tolerated,
 * an `out-of-order` that is not informational, or any other kind whose effect is fail), else
 * unknown when one is undecided, else pass.
 */
export function verdictOf(anomalies: Iterable<Pick<Anomaly, 'kind' | 'tolerated' | 'informational' | 'undecided'>>, error?: string): Verdict {
  let verdict: Verdict = error === undefined ? 'pass' : 'unknown';
  for (const a of anomalies) {
    if (a.tolerated === true || a.informational === true) continue;
    const effect = a.undecided === true ? 'unknown' : effectOf(a.kind);
    if (effect === 'fail') return 'fail';
    if (effect === 'unknown') verdict = 'unknown';
  }
  return verdict;
}

/** An incremental checker for streaming a history of any length. */
export function createChecker(options: CheckOptions): Checker {
  return new HistoryChecker(options);
}

/**
 * Feeds every event to a checker and finishes it. Never throws: a history the checker cannot
 * make sense of, or a failure while reading the events, gives verdict `unknown` with `error`.
 */
export function runChecker(checker: Checker, events: Iterable<HistoryEvent>): CheckResult {
  try {
    for (const event of events) checker.add(event);
  } catch (e) {
    return { verdict: 'unknown', counts: emptyCounts(), anomalies: [], error: `checker failed reading the events: ${e instanceof Error ? e.message : String(e)}` };
  }
  return checker.finish();
}

/** Checks a whole history with the notification checks alone (see runChecker). */
export function checkHistory(events: Iterable<HistoryEvent>, options: CheckOptions): CheckResult {
  return runChecker(createChecker(options), events);
}
