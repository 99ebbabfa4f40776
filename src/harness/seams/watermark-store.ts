/**
 * The DedupStore of an app that keeps no row per item but a high-water mark (config
 * `database.kind: "watermark"`): the `<long>` entry `watermark.key` of the SharedPreferences file
 * `watermark.prefs`, the publication time (epoch ms) of the newest item the app notified. The app
 * skips every item published at or before it, as Tusky fetches only what is newer than its
 * notification marker (tuskyapp/Tusky @43ae0bb4 app/src/main/java/com/keylesspalace/tusky/
 * components/systemnotifications/NotificationFetcher.kt:90-150, `min_id` = the marker, then
 * the newest id fetched saved as the new marker). So:
 *
 * - what is recorded is every item served in the scenario (its `published` events) whose
 *   publication time is at or before the mark, and a run "stored" the items the mark came to
 *   cover during it: those with a time after the mark read before the run and at or before the
 *   mark read after it. An item served at a time the mark already covered is recorded from the
 *   start, as a row that was there before the scenario (it is not stored by any run). An item
 *   whose date did not parse (publication time 0) is covered by no mark.
 * - forgetting items (db-is-truth) moves the mark back to 1 ms before the earliest of them, with
 *   the app stopped and the file backed up (app-data.ts editSharedPrefs); every served item the
 *   move uncovers is forgotten, those named and any published between them and the old mark.
 * - the whole record (readDatabase) is the items the mark covers, each once, as a `rows` event
 *   whose table is the preferences file and whose key column is the entry: one mark cannot hold
 *   an item twice, so the `rows` check cannot fail on it; there is no table, so no schema.
 *
 * A mark the app itself moves back is not a forget: the items it uncovers are still in their
 * epoch, and re-notifying them is a repeat.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appFilesRead, editSharedPrefs } from '../../android/app-data.js';
import { parseSharedPrefs } from '../../android/parsers/shared-prefs.js';
import { setLongPref } from '../../android/shared-prefs-edit.js';
import type { RowJoins } from '../../android/notification-mapping.js';
import type { ShellRead } from '../../android/shell-reads.js';
import type { WatermarkDatabase } from '../../config/types.js';
import { ConfigError, DedupVerifyError, ErrorCode } from '../../errors.js';
import type { DbSnapshot } from '../harness.js';
import type { DeviceSteps } from '../device-steps.js';
import type { DedupStore } from './dedup-store.js';
import { SnapshotStore } from './snapshot-store.js';

/** The mark as read (epoch ms), or null when the file or its entry is not there (nothing notified yet). */
type Mark = number | null;

/** The served items (item → publication time) a mark moved from `after` to `upTo` came to cover; a time of 0 (no date) is covered by none. */
export function coveredBetween(published: ReadonlyMap<string, number>, after: number, upTo: number): string[] {
  return [...published].filter(([, at]) => at > 0 && at > after && at <= upTo).map(([item]) => item);
}

/**
 * Where to move `mark` back to so that it no longer covers `keys` (1 ms before the earliest of
 * them it covers), and every served item that move uncovers; undefined when it covers none of them.
 */
export function markBefore(published: ReadonlyMap<string, number>, keys: readonly string[], mark: number): { readonly to: number; readonly forgotten: string[] } | undefined {
  const covered = keys.map((k) => published.get(k)).filter((at): at is number => at !== undefined && at > 0 && at <= mark);
  if (covered.length === 0) return undefined;
  const to = Math.min(...covered) - 1;
  return { to, forgotten: coveredBetween(published, to, mark) };
}

export class WatermarkStore extends SnapshotStore<Mark> implements DedupStore<Mark> {
  /** The latest publication time of each item served in the scenario, from its `published` events. */
  private readonly published = new Map<string, number>();
  /** How much of the history `published` has taken in. */
  private scanned = 0;
  /** The entry was missing at a read: said once in the notes. */
  private notedMissing = false;

  constructor(
    steps: DeviceSteps,
    private readonly database: WatermarkDatabase,
  ) {
    super(steps);
  }

  private get prefs(): string {
    return this.database.watermark.prefs;
  }

  private get key(): string {
    return this.database.watermark.key;
  }

  keysRead(): ShellRead<Mark> {
    const file = appFilesRead(this.steps.device.serial, this.steps.pkg, [this.prefs]);
    return {
      commands: file.commands,
      parse: async (results) => this.markOf((await file.parse(results))[0] ?? null),
    };
  }

  /** The `<long>` of the file's text; an entry of another type is a config error. */
  private markOf(file: Buffer | null): Mark {
    if (file === null) return null;
    let entries;
    try {
      entries = parseSharedPrefs(file.toString('utf8'));
    } catch (e) {
      throw new ConfigError(`database.watermark.prefs "${this.prefs}" of ${this.steps.pkg} is not a SharedPreferences file the harness can read (${e instanceof Error ? e.message : String(e)}); name the app's shared_prefs/NAME.xml`, 'database.watermark.prefs');
    }
    const entry = entries[this.key];
    if (entry === undefined) {
      if (!this.notedMissing) this.steps.note(`${this.prefs} has no entry "${this.key}" yet (entries: ${Object.keys(entries).join(', ') || 'none'}): no item counts as notified`);
      this.notedMissing = true;
      return null;
    }
    if (entry.type !== 'long') {
      throw new ConfigError(`database.watermark.key "${this.key}" in ${this.prefs} of ${this.steps.pkg} is a <${entry.type}>, not a <long>; name the entry that holds the newest notified publication time`, 'database.watermark.key');
    }
    return entry.value;
  }

  /** The items served in the scenario with their latest publication time (0: the date did not parse). */
  private publications(): ReadonlyMap<string, number> {
    const history = this.steps.history;
    for (; this.scanned < history.length; this.scanned++) {
      const event = history[this.scanned]!;
      if (event.type === 'published' && event.item !== '') this.published.set(event.item, event.publishedAt);
    }
    return this.published;
  }

  protected recordedSince(before: Mark | undefined, now: Mark): string[] {
    if (now === null) return [];
    return coveredBetween(this.publications(), before ?? 0, now);
  }

  async forget(keys: readonly string[]): Promise<void> {
    const steps = this.steps;
    const mark = await this.readNow();
    if (mark === null) {
      throw new ConfigError(`database.watermark: ${this.prefs} of ${steps.pkg} holds no <long name="${this.key}">, so there is no mark to move back; check database.watermark.prefs and .key`, 'database.watermark.key');
    }
    const move = markBefore(this.publications(), keys, mark);
    if (move === undefined) {
      steps.note(`none of the ${keys.length} item(s) to forget is at or before ${this.key} (${new Date(mark).toISOString()}): the mark stays`);
      this.adopt(mark);
      return;
    }
    const { to, forgotten } = move;
    const backup = await editSharedPrefs(steps.device, { pkg: steps.pkg, path: this.prefs, backupDir: `${steps.ctx.backupDir}/forget-${randomUUID()}`, now: () => steps.ctx.clock.now() }, (xml) =>
      setLongPref(xml, this.key, to),
    );
    const detail = `moved ${this.key} in ${this.prefs} back from ${mark} (${new Date(mark).toISOString()}) to ${to} (${new Date(to).toISOString()}): ${forgotten.length} item(s) no longer at or before it`;
    steps.note(`${detail}; backup in ${backup.dir}`);
    steps.action('move-mark', { detail });
    steps.record({ type: 'forgotten', t: await steps.deviceNow(), items: forgotten });
    this.adopt(await this.readNow());
  }

  cleared(): void {
    this.adopt(null);
  }

  async readDatabase(): Promise<DbSnapshot> {
    const steps = this.steps;
    const read = appFilesRead(steps.device.serial, steps.pkg, [this.prefs]);
    const [[file]] = await steps.read([read]);
    const mark = this.markOf(file ?? null);
    const dir = join(steps.ctx.backupDir, `read-${randomUUID()}`);
    await mkdir(dir, { recursive: true });
    const copyPath = join(dir, this.prefs.split('/').pop() ?? 'prefs.xml');
    await writeFile(copyPath, file ?? '');
    const keys = mark === null ? [] : coveredBetween(this.publications(), 0, mark);
    steps.record({ type: 'rows', t: steps.deviceTimeEstimate(), table: this.prefs, keyColumn: this.key, keys });
    return { copyPath, keys };
  }

  inspectSchema(): void {
    throw new DedupVerifyError(ErrorCode.Internal, `database.kind "watermark" keeps one mark in ${this.prefs}, no table: there is no schema to inspect`);
  }

  joins(): RowJoins {
    return {};
  }
}
