/**
 * The config fields for apps shaped otherwise than the reference app (docs/configuration.md):
 * work.scheduler "jobscheduler", database.kind "flag" and "watermark" (and no database at all),
 * notifications.match "row-id" and tagColumn, feed.attach. Each profile's config in
 * fixtures/profiles/ loads; what does not fit together is one line naming the field and the fix.
 */
import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { parseConfig } from '../../../src/config/index.js';
import { ConfigError } from '../../../src/errors.js';

const BASE = {
  app: { package: 'com.example.app' },
  work: { uniqueName: 'feed-poll' },
  windowMs: 172800000,
  database: { file: 'databases/feed.db', table: 'notifications', keyColumn: 'link' },
};

function messageOf(json: unknown): { message: string; field: string | undefined } {
  try {
    parseConfig(json, 'c.json');
  } catch (e) {
    expect(e).to.be.instanceOf(ConfigError);
    return { message: (e as ConfigError).message, field: (e as ConfigError).field };
  }
  throw new Error(`accepted: ${JSON.stringify(json)}`);
}

describe('config: app shapes', () => {
  it('loads every profile config of fixtures/profiles, each in its shape', async () => {
    const dir = new URL('../../../fixtures/profiles/', import.meta.url);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.config.json')).sort();
    expect(files).to.deep.equal(['grouped', 'jobscheduler', 'reference', 'row-id', 'subscription', 'watermark'].map((p) => `${p}.config.json`));
    const shapes: Record<string, unknown> = {};
    for (const f of files) {
      const c = parseConfig(JSON.parse(await readFile(new URL(f, dir), 'utf8')), f);
      shapes[f.replace('.config.json', '')] = [c.work.scheduler, c.database?.kind, c.notifications.match, c.feed.attach?.length ?? 0];
    }
    expect(shapes).to.deep.equal({
      grouped: ['workmanager', 'key', 'hashcode-id', 0],
      jobscheduler: ['jobscheduler', 'key', 'hashcode-id', 0],
      reference: ['workmanager', 'key', 'hashcode-id', 0],
      'row-id': ['workmanager', 'flag', 'row-id', 0],
      subscription: ['workmanager', 'key', 'hashcode-id', 1],
      watermark: ['workmanager', 'watermark', 'hashcode-id', 0],
    });
  });

  it('takes a JobScheduler job by id or by service, with its result line', () => {
    expect(parseConfig({ ...BASE, work: { scheduler: 'jobscheduler', jobService: 'com.example.app.SyncJobService' } }, 'c.json').work).to.deep.equal({
      scheduler: 'jobscheduler',
      jobService: 'com.example.app.SyncJobService',
    });
    const work = parseConfig({ ...BASE, work: { scheduler: 'jobscheduler', jobId: -7, jobNamespace: 'sync', resultLine: 'done: (?<outcome>success|retry|failure)' } }, 'c.json').work;
    expect(work).to.deep.equal({ scheduler: 'jobscheduler', jobId: -7, jobNamespace: 'sync', resultLine: 'done: (?<outcome>success|retry|failure)' });
  });

  it('refuses a result line that does not compile or has no outcome group', () => {
    const bad = messageOf({ ...BASE, work: { scheduler: 'jobscheduler', jobId: 2, resultLine: 'done: (success' } });
    expect(bad.field).to.equal('work.resultLine');
    expect(bad.message).to.match(/^config c\.json: "work\.resultLine" must be a JavaScript regular expression, got "done: \(success" \(.+\)$/);
    expect(messageOf({ ...BASE, work: { scheduler: 'jobscheduler', jobId: 2, resultLine: 'done: (success|retry)' } }).message).to.equal(
      'config c.json: "work.resultLine" must have a named group "outcome" for the run\'s outcome (success, retry or failure), e.g. "Sync finished: (?<outcome>success|retry|failure)", got "done: (success|retry)"',
    );
  });

  it("refuses a field of another scheduler's or kind's, naming it and the fix", () => {
    expect(messageOf({ ...BASE, work: { uniqueName: 'feed-poll', jobId: 2 } })).to.deep.equal({
      message: 'config c.json: "work.jobId" does not apply to work.scheduler "workmanager" (the default); remove it, or change work.scheduler',
      field: 'work.jobId',
    });
    expect(messageOf({ ...BASE, work: { scheduler: 'jobscheduler', jobId: 2, uniqueName: 'feed-poll' } }).field).to.equal('work.uniqueName');
    expect(messageOf({ ...BASE, database: { ...BASE.database, flagColumn: 'notified' } })).to.deep.equal({
      message: 'config c.json: "database.flagColumn" does not apply to database.kind "key" (the default); remove it, or change database.kind',
      field: 'database.flagColumn',
    });
    expect(messageOf({ ...BASE, database: { kind: 'watermark', file: 'databases/feed.db', watermark: { prefs: 'shared_prefs/s.xml', key: 'mark' } } }).field).to.equal('database.file');
  });

  it('asks each database kind for its own fields', () => {
    expect(messageOf({ ...BASE, database: { ...BASE.database, kind: 'flag' } }).field).to.equal('database.flagColumn');
    expect(messageOf({ ...BASE, database: { kind: 'watermark' } }).message).to.match(/^config c\.json: "database\.watermark" is missing; it must be an object with "prefs" and "key"/);
    expect(messageOf({ ...BASE, database: { kind: 'watermark', watermark: { prefs: 'prefs.xml', key: 'mark' } } }).field).to.equal('database.watermark.prefs');
  });

  it('loads a config with no database (no record to read)', () => {
    const { database: _, ...rest } = BASE;
    const c = parseConfig(rest, 'c.json');
    expect(c.database).to.equal(undefined);
  });

  it('joins row ids and server-id tags through a table, so it needs one', () => {
    const rowId = parseConfig({ ...BASE, notifications: { match: 'row-id', idColumn: 'id' } }, 'c.json');
    expect(rowId.notifications).to.deep.equal({ match: 'row-id', idColumn: 'id' });
    expect(messageOf({ ...BASE, notifications: { match: 'row-id' } }).field).to.equal('notifications.idColumn');
    const { database: _, ...noDb } = BASE;
    expect(messageOf({ ...noDb, notifications: { match: 'row-id', idColumn: 'id' } })).to.deep.equal({
      message:
        'config c.json: notifications.match "row-id" joins a post to its item through a row of database.table, but there is no "database"; give "database" with kind "key" or "flag" (file, table, keyColumn), or another notifications.match',
      field: 'notifications.match',
    });
    const watermark = { kind: 'watermark', watermark: { prefs: 'shared_prefs/s.xml', key: 'mark' } };
    expect(messageOf({ ...BASE, database: watermark, notifications: { match: 'tag', tagColumn: 'server_id' } }).message).to.contain('database.kind is "watermark" (no table)');
    expect(messageOf({ ...BASE, notifications: { match: 'hashcode-id', tagColumn: 'server_id' } }).field).to.equal('notifications.tagColumn');
    expect(messageOf({ ...BASE, notifications: { match: 'tag', idColumn: 'id' } }).field).to.equal('notifications.idColumn');
  });

  it('takes feed.attach steps of each form, and names an unknown form with the nearest one', () => {
    const attach = [
      { intent: { action: 'android.intent.action.VIEW', data: '{feedUrl}', mimeType: 'application/rss+xml', component: 'com.example.app/.MainActivity' } },
      { deepLink: 'exampleapp://subscribe?url={feedUrl}' },
      { sql: { statements: ["INSERT INTO feeds (url) VALUES ({feedUrl})"] } },
    ];
    expect(parseConfig({ ...BASE, feed: { attach } }, 'c.json').feed.attach).to.deep.equal(attach);
    expect(messageOf({ ...BASE, feed: { attach: [{ intnt: { action: 'android.intent.action.VIEW' } }] } }).message).to.equal(
      'config c.json: unknown key "feed.attach.0.intnt"; did you mean "feed.attach.0.intent"?',
    );
    expect(messageOf({ ...BASE, feed: { attach: [{}] } })).to.deep.equal({
      message: 'config c.json: "feed.attach.0" must be an object with exactly one of "intent", "deepLink" or "sql" (e.g. {"intent": {"action": "android.intent.action.VIEW", "data": "{feedUrl}", "component": "com.example.app/.MainActivity"}}), got {}',
      field: 'feed.attach.0',
    });
    expect(messageOf({ ...BASE, feed: { attach: [{ deepLink: 'x://a', sql: { statements: ['SELECT 1'] } }] } }).field).to.equal('feed.attach.0');
    // Values that reach the device shell are held to their character sets (docs/design.md §8).
    expect(messageOf({ ...BASE, feed: { attach: [{ intent: { action: 'VIEW; rm -rf /' } }] } }).field).to.equal('feed.attach.0.intent.action');
    expect(messageOf({ ...BASE, feed: { attach: [{ deepLink: 'x://a b' }] } }).field).to.equal('feed.attach.0.deepLink');
  });
});
