/**
 * A recording fake of the Harness API (src/harness/harness.ts) for unit specs of scenarios:
 * no device, no sockets, a device clock that moves only when the scenario moves it. It keeps
 * every call as a readable step and leaves the history events the real harness records for the
 * same calls (published, run-started/run-finished, schedule, rows, schema, actions), so a spec
 * checks both what a scenario does and what the property checks will read. What the "app" does
 * in a forced run is scripted per run (`onRun`); by default a run succeeds and posts nothing.
 */
import { parseConfig } from '../../src/config/parse-config.js';
import { tableDatabaseOf, workManagerWorkOf, type Config } from '../../src/config/types.js';
import type { HistoryEvent, ScheduleSpec } from '../../src/history/events.js';
import type {
  DbSnapshot, FaultPlan, ForceRunOptions, Harness, ItemSpec, Journal, RunOutcome, RunResult, ScheduledSpec, ServedItem, ServerEffect,
  WorkSnapshot,
} from '../../src/harness/harness.js';
import referenceConfig from '../../fixtures/reference-app.config.json' with { type: 'json' };

export const HOUR = 3_600_000;
/** The device clock when a fake harness starts: 2024-06-01T12:00:00Z. */
export const FAKE_START = Date.UTC(2024, 5, 1, 12);

/** What the scripted app does in one forced run. */
export interface FakeRun {
  readonly outcome?: RunOutcome;
  /** Items (links) posted in the run. */
  readonly posted?: readonly string[];
  /** Keys stored in the run. */
  readonly stored?: readonly string[];
  /** HTTP statuses of the run's feed fetches (default [200]). */
  readonly fetchStatuses?: readonly number[];
}

/** A WorkSpec of the reference app's periodic work (24 h interval). */
export function fakeSpec(over: Partial<ScheduledSpec> = {}): ScheduledSpec {
  return {
    id: 'c0ffee00-0000-4000-8000-000000000001',
    state: 0,
    workerClassName: 'com.example.feednotifier.FeedPollWorker',
    initialDelay: 0,
    intervalDuration: 24 * HOUR,
    flexDuration: 24 * HOUR,
    runAttemptCount: 0,
    backoffPolicy: 0,
    backoffDelayDuration: 30_000,
    lastEnqueueTime: FAKE_START - HOUR,
    periodCount: 1,
    generation: 0,
    nextScheduleTimeOverride: null,
    systemId: 7,
    ...over,
  };
}

export class FakeHarness implements Harness {
  readonly config: Config = parseConfig(referenceConfig, 'fixtures/reference-app.config.json');
  readonly apiLevel = 34;
  /** Every call, in order, as a short readable line. */
  readonly steps: string[] = [];
  readonly notes: string[] = [];
  readonly events: HistoryEvent[] = [];
  /** The device clock (ms). */
  now = FAKE_START;
  /** Scripts each forced run (probes included); `n` counts forced runs from 1, `options` as given. */
  onRun: (n: number, options: ForceRunOptions) => FakeRun = () => ({});
  /** Scripts each read of WorkManager's database (`n` counts reads from 1). */
  onReadWork: (n: number, label: string | undefined) => WorkSnapshot = () => {
    const spec = fakeSpec();
    return { namedSpecs: [spec], workerSpecs: [spec], primary: spec };
  };
  /** The dedup table's keys at each read. */
  onReadDatabase: () => (string | null)[] = () => [];
  private runs = 0;
  private reads = 0;
  private runNumber = 0;
  private readonly served = new Map<string, ServedItem>();

  step(text: string): void {
    this.steps.push(`step: ${text}`);
  }
  note(text: string): void {
    this.notes.push(text);
  }

  serveFeed(items: readonly ItemSpec[]): Promise<readonly ServedItem[]> {
    const served = items.map((spec): ServedItem => {
      const item = spec.link === 'missing' || spec.link === 'empty' ? '' : `https://feed.test/${spec.label}`;
      const publishedAt = spec.rawDate !== undefined ? 0 : Math.floor((spec.atMs ?? this.now - (spec.ageMs ?? 0)) / 1000) * 1000;
      return { label: spec.label, item, title: spec.title ?? spec.label, publishedAt };
    });
    for (const s of served) {
      this.served.set(s.label, s);
      this.events.push({ type: 'published', t: this.now, item: s.item, publishedAt: s.publishedAt, title: s.title, label: s.label });
    }
    this.steps.push(`serveFeed ${served.map((s) => `${s.label}@${s.publishedAt === 0 ? 'bad-date' : `-${Math.round((this.now - s.publishedAt) / 60_000)}m`}`).join(' ')}`.trimEnd());
    return Promise.resolve(served);
  }
  fault(route: 'feed' | 'receipts', plan: FaultPlan): void {
    this.steps.push(`fault ${route} ${JSON.stringify(plan)}`);
    this.events.push({ type: 'action', t: this.now, action: 'fault', detail: `${route}: ${JSON.stringify(plan)}` });
  }
  clearFaults(): void {
    this.steps.push('clearFaults');
  }
  journal(): readonly Journal[] {
    return [];
  }
  effects(): readonly ServerEffect[] {
    return [];
  }

  deviceNow(): Promise<number> {
    return Promise.resolve(this.now);
  }
  advanceClock(ms: number): Promise<void> {
    this.now += ms;
    this.steps.push(`advanceClock +${Math.round(ms / 60_000)}m`);
    this.events.push({ type: 'action', t: this.now, action: 'set-time', argv: ['cmd', 'alarm', 'set-time', String(this.now)] });
    return Promise.resolve();
  }
  openGuard(): Promise<number> {
    this.steps.push('openGuard');
    return Promise.resolve(this.now);
  }

  forceRun(options: ForceRunOptions = {}): Promise<RunResult> {
    this.runs += 1;
    const scripted = this.onRun(this.runs, options);
    const probe = options.probe === true;
    const kill = options.killAt;
    this.steps.push(`forceRun${probe ? ' probe' : ''}${kill ? ` killAt ${kill.route}#${kill.nth} ${kill.kill}` : ''}`);
    const outcome: RunOutcome = scripted.outcome ?? (kill ? 'killed' : 'success');
    const fetchStatuses = scripted.fetchStatuses ?? [200];
    const run = probe ? 0 : ++this.runNumber;
    if (probe) {
      this.events.push({ type: 'action', t: this.now, action: 'probe-run', outcome, statuses: [...fetchStatuses] });
    } else {
      this.events.push({ type: 'run-started', t: this.now, run, deviceTime: this.now });
      for (const status of fetchStatuses) {
        this.events.push({ type: 'fetched', t: this.now + 1, run, items: status === 200 ? [...this.served.values()].map((s) => s.item) : [], status });
      }
      for (const item of scripted.posted ?? []) this.events.push({ type: 'notified', t: this.now + 2, run, item, status: 'post', alertOnce: false });
      for (const item of scripted.stored ?? []) this.events.push({ type: 'stored', t: this.now + 3, run, item });
      this.events.push({ type: 'run-finished', t: this.now + 4, run, outcome });
    }
    this.now += 5;
    return Promise.resolve({
      run, outcome, deviceTime: this.now, posted: [...(scripted.posted ?? [])], updated: [], stored: [...(scripted.stored ?? [])], fetchStatuses, evidence: [],
    });
  }

  forgetRows(items: 'all' | readonly string[]): Promise<void> {
    const keys = items === 'all' ? [...this.served.values()].map((s) => s.item) : [...items];
    this.steps.push(`forgetRows ${items === 'all' ? 'all' : keys.length}`);
    this.events.push({ type: 'forgotten', t: this.now, items: keys });
    return Promise.resolve();
  }
  clearAppData(): Promise<void> {
    this.steps.push('clearAppData');
    this.events.push({ type: 'action', t: this.now, action: 'clear-app-data' }, { type: 'forgotten', t: this.now, items: 'all' });
    return Promise.resolve();
  }
  startApp(): Promise<void> {
    this.steps.push('startApp');
    this.events.push({ type: 'action', t: this.now, action: 'start-app' });
    return Promise.resolve();
  }
  forceStop(): Promise<void> {
    this.steps.push('forceStop');
    this.events.push({ type: 'action', t: this.now, action: 'force-stop' });
    return Promise.resolve();
  }
  killProcess(): Promise<void> {
    this.steps.push('killProcess');
    this.events.push({ type: 'action', t: this.now, action: 'kill' });
    return Promise.resolve();
  }
  async restartApp(): Promise<void> {
    await this.forceStop();
    await this.startApp();
  }
  startProcessWithoutActivity(): Promise<void> {
    this.steps.push('startProcessWithoutActivity');
    this.events.push({ type: 'action', t: this.now, action: 'start-process' });
    return Promise.resolve();
  }

  readWork(label?: string): Promise<WorkSnapshot> {
    this.reads += 1;
    const work = this.onReadWork(this.reads, label);
    this.steps.push(`readWork${label !== undefined ? ` ${label}` : ''}`);
    const named = new Set(work.namedSpecs.map((s) => s.id));
    const specs = new Map<string, ScheduleSpec>();
    for (const s of [...work.namedSpecs, ...work.workerSpecs]) {
      specs.set(s.id, {
        id: s.id, named: named.has(s.id), workerClass: s.workerClassName, state: s.state, intervalMs: s.intervalDuration, flexMs: s.flexDuration,
        lastEnqueueTime: s.lastEnqueueTime, runAttemptCount: s.runAttemptCount, systemId: s.systemId ?? null,
      });
    }
    this.events.push({
      type: 'schedule', t: this.now, ...(label !== undefined ? { label } : {}), uniqueName: workManagerWorkOf(this.config, 'FakeHarness.readWork').uniqueName,
      ...(workManagerWorkOf(this.config, 'FakeHarness.readWork').workerClass !== undefined ? { workerClass: workManagerWorkOf(this.config, 'FakeHarness.readWork').workerClass } : {}),
      specs: [...specs.values()], primary: work.primary?.id ?? null,
    });
    return Promise.resolve(work);
  }
  readDatabase(): Promise<DbSnapshot> {
    const keys = this.onReadDatabase();
    this.steps.push('readDatabase');
    this.events.push({ type: 'rows', t: this.now, table: tableDatabaseOf(this.config, 'FakeHarness.readDatabase').table, keyColumn: tableDatabaseOf(this.config, 'FakeHarness.readDatabase').keyColumn, keys: [...keys] });
    return Promise.resolve({ copyPath: '/nonexistent/fake.db', keys });
  }
  inspectSchema(db: DbSnapshot, sampleKey: string | undefined): void {
    this.steps.push(`inspectSchema ${sampleKey ?? '(no sample)'}`);
    const { table, keyColumn } = tableDatabaseOf(this.config, 'FakeHarness.inspectSchema');
    this.events.push({
      type: 'schema', t: this.now, table, keyColumn,
      columns: [{ name: keyColumn, type: 'TEXT', notnull: false, pk: false }],
      indexes: [{ name: `index_${table}_${keyColumn}`, unique: true, partial: false, columns: [keyColumn] }],
      nullKeyRowsStored: 2,
      ...(sampleKey !== undefined ? { replay: { key: sampleKey, rowsAdded: 0 } } : {}),
    });
    void db;
  }
}

/** The link the fake serves for a label. */
export function link(label: string): string {
  return `https://feed.test/${label}`;
}
