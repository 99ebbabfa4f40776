/**
 * The pure parts of the flag and watermark stores and of the row-id mapping (src/harness/seams/):
 * what the rows of a table record and join, what a mark covers and where db-is-truth moves it,
 * the SharedPreferences edit that moves it, and a run's posts mapped through the joins.
 */
import { expect } from 'chai';
import { FeedItemIndex } from '../../../src/android/notification-mapping.js';
import { parseSharedPrefs } from '../../../src/android/parsers/shared-prefs.js';
import { setLongPref } from '../../../src/android/shared-prefs-edit.js';
import { parseLogLine } from '../../../src/android/parsers/logcat.js';
import { ConfigError } from '../../../src/errors.js';
import type { DeviceSteps } from '../../../src/harness/device-steps.js';
import type { ObservedLine } from '../../../src/harness/log-observer.js';
import { observeLogLines, type ObservationContext } from '../../../src/harness/run-observation.js';
import { tableSnapshot } from '../../../src/harness/seams/dedup-store.js';
import { RowIdMapping, TagMapping } from '../../../src/harness/seams/post-mapping.js';
import { coveredBetween, markBefore } from '../../../src/harness/seams/watermark-store.js';

const A = 'https://example.org/a';
const B = 'https://example.org/b';
const C = 'https://example.org/c';
const H = 3_600_000;
const T = Date.UTC(2026, 11, 1, 12);

/** A DeviceSteps no path under test may touch: any use of it throws. */
const noDevice = new Proxy({}, {
  get: (_target, name) => {
    throw new Error(`the device was used (${String(name)})`);
  },
}) as DeviceSteps;

describe('dedup stores: the pure parts', () => {
  describe('tableSnapshot (kind key and flag, with the joins)', () => {
    const rows = [
      { id: 1, guid: A, notified: 1, title: 'A', server_id: 'srv-1' },
      { id: 2, guid: B, notified: 0, title: 'B', server_id: 'srv-2' },
      { id: 3, guid: C, notified: null, title: 'C', server_id: 3 },
      { id: 4, guid: null, notified: 1, title: 'no key', server_id: 'srv-4' },
    ];

    it('records every row with a key in a key table', () => {
      expect([...tableSnapshot(rows, { table: 'notifications', keyColumn: 'guid' }).recorded]).to.deep.equal([A, B, C]);
    });

    it('records only the rows whose flag is non-zero in a flag table (NULL and 0 are not notified)', () => {
      expect([...tableSnapshot(rows, { table: 'feed_items', keyColumn: 'guid', flagColumn: 'notified' }).recorded]).to.deep.equal([A]);
      expect([...tableSnapshot([{ guid: A, notified: 5n }], { table: 'feed_items', keyColumn: 'guid', flagColumn: 'notified' }).recorded]).to.deep.equal([A]);
    });

    it('joins every keyed row id (flag set or not) and tag to its key; nothing when the config names no join', () => {
      const s = tableSnapshot(rows, { table: 'feed_items', keyColumn: 'guid', flagColumn: 'notified', idColumn: 'id', tagColumn: 'server_id' });
      expect([...s.rowIds]).to.deep.equal([[1, A], [2, B], [3, C]]);
      expect([...s.tags]).to.deep.equal([['srv-1', A], ['srv-2', B], ['3', C]]);
      const plain = tableSnapshot(rows, { table: 'feed_items', keyColumn: 'guid' });
      expect([plain.rowIds.size, plain.tags.size]).to.deep.equal([0, 0]);
    });

    it('turns a row id into the notification id Long.toInt() gives (the low 32 bits)', () => {
      const s = tableSnapshot([{ id: 2 ** 32 + 7, guid: A }, { id: 2n ** 31n, guid: B }], { table: 'feed_items', keyColumn: 'guid', idColumn: 'id' });
      expect([...s.rowIds]).to.deep.equal([[7, A], [-(2 ** 31), B]]);
    });

    it('refuses a configured column the rows do not have, naming the config field and the columns there are', () => {
      const cases: [Parameters<typeof tableSnapshot>[1], string][] = [
        [{ table: 'feed_items', keyColumn: 'link' }, 'database.keyColumn "link": table feed_items has no such column (it has id, guid, notified, title, server_id); name one of those in the config'],
        [{ table: 'feed_items', keyColumn: 'guid', flagColumn: 'seen' }, 'database.flagColumn "seen": table feed_items has no such column (it has id, guid, notified, title, server_id); name one of those in the config'],
        [{ table: 'feed_items', keyColumn: 'guid', idColumn: 'rowid' }, 'notifications.idColumn "rowid": table feed_items has no such column (it has id, guid, notified, title, server_id); name one of those in the config'],
      ];
      for (const [columns, message] of cases) {
        expect(() => tableSnapshot(rows, columns)).to.throw(ConfigError, message);
      }
      expect(() => tableSnapshot([{ id: 'x1', guid: A }], { table: 'feed_items', keyColumn: 'guid', idColumn: 'id' })).to.throw(ConfigError, /holds "x1", not a row id/);
      // An empty table shows no columns: nothing to refuse yet.
      expect([...tableSnapshot([], { table: 'feed_items', keyColumn: 'link' }).recorded]).to.deep.equal([]);
    });
  });

  describe('the watermark', () => {
    const published = new Map([[A, T - 3 * H], [B, T - 2 * H], [C, T - H], ['https://example.org/bad-date', 0]]);

    it('covers, between two reads, the items published after the first mark and at or before the second; never one without a date', () => {
      expect(coveredBetween(published, 0, T - 2 * H)).to.deep.equal([A, B]);
      expect(coveredBetween(published, T - 2 * H, T)).to.deep.equal([C]);
      expect(coveredBetween(published, T, T + H)).to.deep.equal([]);
      expect(coveredBetween(published, -1, T)).to.not.include('https://example.org/bad-date');
    });

    it('moves back to 1 ms before the earliest item to forget it covers, forgetting every item in between', () => {
      expect(markBefore(published, [B], T)).to.deep.equal({ to: T - 2 * H - 1, forgotten: [B, C] });
      expect(markBefore(published, [C, A], T - H)).to.deep.equal({ to: T - 3 * H - 1, forgotten: [A, B, C] });
    });

    it('does not move for items it does not cover (not yet notified, unknown, or without a date)', () => {
      expect(markBefore(published, [C], T - 2 * H)).to.equal(undefined);
      expect(markBefore(published, ['https://example.org/never-served', 'https://example.org/bad-date'], T)).to.equal(undefined);
    });
  });

  describe('setLongPref (a <long> of shared_prefs, as SharedPreferencesImpl writes it)', () => {
    const file = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n    <string name=\"account\">me &amp; you</string>\n    <long name=\"last_notified_published_at\" value=\"1764590400000\" />\n</map>\n";

    it('replaces the entry in place and keeps the rest byte for byte', () => {
      const edited = setLongPref(file, 'last_notified_published_at', 1764579599999);
      expect(edited).to.equal(file.replace('1764590400000', '1764579599999'));
      expect(parseSharedPrefs(edited)).to.deep.equal({ account: { type: 'string', value: 'me & you' }, last_notified_published_at: { type: 'long', value: 1764579599999 } });
    });

    it('adds a missing entry at the end of the map, and fills an empty map, escaping the name as FastXmlSerializer does', () => {
      expect(setLongPref(file, 'a"b&c', 5)).to.equal(file.replace('</map>', '    <long name="a&quot;b&amp;c" value="5" />\n</map>'));
      expect(parseSharedPrefs(setLongPref("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map />\n", 'k\u0001', 0))).to.deep.equal({ 'k\u0001': { type: 'long', value: 0 } });
    });

    it('refuses an entry of another type, a value that is not a whole number, and a file that is no map', () => {
      expect(() => setLongPref(file, 'account', 1)).to.throw('"account" is a <string>, not a <long>');
      expect(() => setLongPref(file, 'last_notified_published_at', 1.5)).to.throw(RangeError);
      expect(() => setLongPref('ABX\u0000binary', 'k', 1)).to.throw('binary XML (ABX)');
      expect(() => setLongPref('<prefs/>', 'k', 1)).to.throw('no <map> element');
    });
  });

  describe('posts mapped through the joins of the app\'s table', () => {
    const PKG = 'com.example.feednotifier';
    const items = [{ key: A, title: 'A' }, { key: B, title: 'B' }];
    function enqueue(seq: number, id: number, tag = 'NULL'): ObservedLine {
      const text = `1796100000.${seq}00  1508  1508 I notification_enqueue: [10190,4242,${PKG},${id},${tag},0,Notification(channel=feed_items shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE),0]`;
      const parsed = parseLogLine(text);
      if (parsed === null) throw new Error(`not a log line: ${text}`);
      return { ...parsed, seq, raw: text };
    }
    const observe = async (mapping: RowIdMapping | TagMapping, lines: ObservedLine[]): Promise<string[]> => {
      const ctx: ObservationContext = {
        pkg: PKG, match: mapping.match, index: mapping.index(items), feedPath: '/feed.xml', backendPath: '/receipts',
        mapByContent: (index, id, tag) => mapping.mapByContent(index, id, tag),
      };
      const seen = await observeLogLines(lines, { run: 1, probe: false, deviceTime: T, hostAtStart: 0 }, ctx);
      return seen.events.map((e) => (e.type === 'notified' ? e.item : e.type));
    };

    it('row-id: maps each post by its row\'s key; a post whose id is in no row stays ?id=N without a content read (unexpected)', async () => {
      const joins = { rowIds: new Map([[1, A], [2, B]]) };
      expect(await observe(new RowIdMapping(noDevice, () => joins), [enqueue(1, 1), enqueue(2, 2), enqueue(3, 99)])).to.deep.equal([A, B, '?id=99']);
    });

    it('row-id: takes the joins as they are when the run is observed (the read after the run)', async () => {
      const joins = { rowIds: new Map<number, string>() };
      const mapping = new RowIdMapping(noDevice, () => joins);
      joins.rowIds.set(7, B);
      expect(await observe(mapping, [enqueue(1, 7)])).to.deep.equal([B]);
    });

    it('tag with tagColumn: a server-id tag maps through its row; a tag that is the link still maps', async () => {
      const joins = { tags: new Map([['srv-1', A]]) };
      expect(await observe(new TagMapping(noDevice, () => joins), [enqueue(1, 10, 'srv-1'), enqueue(2, 11, B)])).to.deep.equal([A, B]);
    });

    it('FeedItemIndex: a row whose key is no served item maps to nothing by the rule (its content decides)', () => {
      const index = new FeedItemIndex(items, { rowIds: new Map([[3, 'Headline A']]) });
      expect(index.map({ id: 3, tag: null }, 'row-id', null)).to.deep.equal({ kind: 'unmapped', reason: 'no item matches by row-id and no notification content was available', candidates: [] });
      expect(index.map({ id: 3, tag: null }, 'row-id', { title: 'A', text: A })).to.deep.equal({ kind: 'mapped', item: A, via: 'content' });
    });
  });
});
