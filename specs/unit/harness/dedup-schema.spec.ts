/**
 * The schema read and the probe inserts of src/harness/dedup-schema.ts on host SQLite files made
 * the way Room makes them: the reference app's nullable key with its own UNIQUE index, and Feeder's
 * feed_items (guid TEXT NOT NULL, UNIQUE (guid, feed_id), feed_id nullable: spacecowboy/Feeder
 * @091ca126 app/schemas/…AppDatabase/39.json). The probes never change the file.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { inspectDedupSchema } from '../../../src/harness/dedup-schema.js';

const A = 'https://example.org/a';

describe('dedup schema: read and probed on a host copy', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dv-schema-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function make(name: string, sql: string[], rows: [string, unknown[]][]): string {
    const path = join(dir, name);
    const db = new Database(path);
    for (const s of sql) db.exec(s);
    for (const [insert, values] of rows) db.prepare(insert).run(...values);
    db.close();
    return path;
  }
  const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

  it("Feeder's feed_items: the key NOT NULL with no default, the composite index, a copy of the row refused", () => {
    const path = make('feeder.db', [
      'CREATE TABLE `feed_items` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `guid` TEXT NOT NULL, `title` TEXT NOT NULL, `notified` INTEGER NOT NULL, `feed_id` INTEGER)',
      'CREATE UNIQUE INDEX `index_feed_items_guid_feed_id` ON `feed_items` (`guid`, `feed_id`)',
      'CREATE INDEX `index_feed_items_feed_id` ON `feed_items` (`feed_id`)',
    ], [['INSERT INTO feed_items (guid, title, notified, feed_id) VALUES (?, ?, 1, 4)', [A, 'A']]]);
    const before = digest(path);
    const schema = inspectDedupSchema(path, 'feed_items', 'guid', A);
    expect(schema.columns.find((c) => c.name === 'guid')).to.deep.equal({ name: 'guid', type: 'TEXT', notnull: true, pk: false, default: null });
    expect(schema.indexes.map((ix) => [ix.name, ix.unique, ix.columns])).to.have.deep.members([
      ['index_feed_items_guid_feed_id', true, ['guid', 'feed_id']],
      ['index_feed_items_feed_id', false, ['feed_id']],
    ]);
    // No NULL probe for a NOT NULL key; the same item again (its own feed_id) adds nothing.
    expect(schema).to.not.have.property('nullKeyRowsStored');
    expect(schema.replay).to.deep.equal({ key: A, rowsAdded: 0 });
    expect(digest(path)).to.equal(before);
  });

  it("the same row again is a second row where the composite index's other column is NULL (every NULL is distinct)", () => {
    const path = make('null-feed.db', [
      'CREATE TABLE `feed_items` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `guid` TEXT NOT NULL, `feed_id` INTEGER)',
      'CREATE UNIQUE INDEX `ix` ON `feed_items` (`guid`, `feed_id`)',
    ], [['INSERT INTO feed_items (guid, feed_id) VALUES (?, NULL)', [A]]]);
    expect(inspectDedupSchema(path, 'feed_items', 'guid', A).replay).to.deep.equal({ key: A, rowsAdded: 1 });
  });

  it('the reference shape: a nullable key, two NULL keys stored, the replay ignored; without the UNIQUE index, added', () => {
    const create = 'CREATE TABLE `notifications` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `link` TEXT, `title` TEXT NOT NULL, `published_at` INTEGER NOT NULL DEFAULT 0)';
    const row: [string, unknown[]] = ['INSERT INTO notifications (link, title) VALUES (?, ?)', [A, 'A']];
    const unique = inspectDedupSchema(make('ref.db', [create, 'CREATE UNIQUE INDEX `ix` ON `notifications` (`link`)'], [row]), 'notifications', 'link', A);
    expect([unique.nullKeyRowsStored, unique.replay]).to.deep.equal([2, { key: A, rowsAdded: 0 }]);
    expect(unique.columns.find((c) => c.name === 'published_at')?.default).to.equal('0');
    const plain = inspectDedupSchema(make('plain.db', [create, 'CREATE INDEX `ix` ON `notifications` (`link`)'], [row]), 'notifications', 'link', A);
    expect([plain.nullKeyRowsStored, plain.replay]).to.deep.equal([2, { key: A, rowsAdded: 1 }]);
  });

  it('no replay probe for a key with no row, and no probes at all without the key column', () => {
    const path = make('empty.db', ['CREATE TABLE `t` (`k` TEXT)'], []);
    expect(inspectDedupSchema(path, 't', 'k', A)).to.not.have.property('replay');
    expect(inspectDedupSchema(path, 't', 'missing', A)).to.deep.equal({ columns: [{ name: 'k', type: 'TEXT', notnull: false, pk: false, default: null }], indexes: [] });
  });
});
