/**
 * Which scenarios apply to each way an app remembers what it notified (config `database`): every
 * scenario runs against a key table and a flag table; a watermark has no table, so only
 * durable-identity does not apply; with no `database` the scenarios that need a record are
 * skipped, each with the reason (none may pass having read nothing).
 */
import { expect } from 'chai';
import { parseConfig } from '../../../src/config/index.js';
import type { Config } from '../../../src/config/types.js';
import { SCENARIOS } from '../../../src/scenarios/index.js';

const BASE = { app: { package: 'com.example.app' }, work: { uniqueName: 'feed-poll' }, windowMs: 172800000 };
const config = (database?: unknown): Config => parseConfig(database === undefined ? BASE : { ...BASE, database }, 'c.json');
const skipped = (c: Config): Record<string, string> =>
  Object.fromEntries(SCENARIOS.flatMap((s) => {
    const why = s.notApplicable?.(c);
    return why === undefined ? [] : [[s.name, why]];
  }));

describe('scenarios: which apply to each dedup store shape', () => {
  it('every scenario applies to a key table and to a flag table', () => {
    expect(skipped(config({ file: 'databases/feed.db', table: 'notifications', keyColumn: 'link' }))).to.deep.equal({});
    expect(skipped(config({ kind: 'flag', file: 'databases/feed.db', table: 'feed_items', keyColumn: 'guid', flagColumn: 'notified' }))).to.deep.equal({});
  });

  it('a watermark skips only durable-identity: there is no table to index', () => {
    expect(skipped(config({ kind: 'watermark', watermark: { prefs: 'shared_prefs/state.xml', key: 'last' } }))).to.deep.equal({
      'durable-identity': 'database.kind "watermark" keeps one mark in SharedPreferences, no table: there is no key column to index and no row to insert again',
    });
  });

  it('no database skips the scenarios that need a record, each saying why', () => {
    expect(skipped(config())).to.deep.equal({
      'db-is-truth': 'the config has no "database": there is no record of the app\'s to delete, so no re-post can show that the record is what the app dedups on',
      'kill-mid-run': 'the config has no "database": a repeat after a kill is excused only when the killed run had not recorded the item yet, and nothing shows what the app recorded',
      'process-death-replay': 'the config has no "database": its rows check reads the app\'s record, which the config does not name',
      'durable-identity': 'the config has no "database": there is no table whose key column to inspect',
    });
  });
});
