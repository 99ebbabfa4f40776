/**
 * feed.attach's pure parts (src/harness/feed-attach.ts): each step's `am start` words, `{feedUrl}`
 * as it is, percent-encoded or an SQL literal, the words quoted for the device shell as sent, the
 * reading of `am start -W`'s answer into a one-line error naming the step and the fix, and the
 * config rules across sections (parse-config.ts).
 */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import type { Config } from '../../../src/config/types.js';
import { parseConfig } from '../../../src/config/index.js';
import { buildShellCommand } from '../../../src/device/shell-quote.js';
import { ConfigError } from '../../../src/errors.js';
import type { ShellResult } from '../../../src/device/android-device.js';
import { attachCommand, attachDatabaseFile, attachStatements, checkAttachStart, withEncodedFeedUrl, withFeedUrl, withSqlFeedUrl } from '../../../src/harness/feed-attach.js';

const PKG = 'com.example.app';
const URL_ = 'http://127.0.0.1:8766/rss.xml';
const config: Pick<Config, 'app' | 'feed' | 'database'> = {
  app: { package: PKG },
  feed: { devicePort: 8766, path: '/rss.xml', format: 'rss' },
  database: { kind: 'key', file: 'databases/app.db', table: 'seen', keyColumn: 'link' },
};

const answer = (stdout: string, exitCode = 0, stderr = ''): ShellResult => ({ stdout: Buffer.from(stdout), stderr, exitCode });

function refusal(run: () => void): ConfigError {
  try {
    run();
  } catch (e) {
    expect(e).to.be.instanceOf(ConfigError);
    expect((e as ConfigError).message).to.not.include('\n');
    return e as ConfigError;
  }
  throw new Error('accepted');
}

describe('feed.attach', () => {
  describe('{feedUrl}', () => {
    it('is the URL as it is in intent data, every occurrence', () => {
      expect(withFeedUrl('{feedUrl}#{feedUrl}', URL_)).to.equal(`${URL_}#${URL_}`);
    });
    it('is percent-encoded in a deep link (a query value: : / ? & = escaped)', () => {
      expect(withEncodedFeedUrl('app://subscribe?url={feedUrl}&x=1', 'http://h:1/a?b=c&d')).to.equal('app://subscribe?url=http%3A%2F%2Fh%3A1%2Fa%3Fb%3Dc%26d&x=1');
    });
    it('is an SQL string literal in a statement, a quote doubled, and runs as one', () => {
      const sql = withSqlFeedUrl('INSERT INTO feeds (url) VALUES ({feedUrl})', "http://h/it's.xml");
      expect(sql).to.equal("INSERT INTO feeds (url) VALUES ('http://h/it''s.xml')");
      const db = new Database(':memory:');
      db.exec('CREATE TABLE feeds (url TEXT)');
      db.exec(sql);
      expect(db.prepare('SELECT url FROM feeds').all()).to.deep.equal([{ url: "http://h/it's.xml" }]);
      db.close();
    });
  });

  describe('the am start words', () => {
    it('intent with a component: -W -a -d -t -n, the component given its package when it has none', () => {
      expect(attachCommand({ intent: { action: 'android.intent.action.VIEW', data: '{feedUrl}', mimeType: 'application/rss+xml', component: '.ui.AddFeed' } }, config)).to.deep.equal(
        ['am', 'start', '-W', '-a', 'android.intent.action.VIEW', '-d', URL_, '-t', 'application/rss+xml', '-n', `${PKG}/.ui.AddFeed`],
      );
      expect(attachCommand({ intent: { action: 'a.b.C', component: `${PKG}/a.b.Main` } }, config)).to.deep.equal(['am', 'start', '-W', '-a', 'a.b.C', '-n', `${PKG}/a.b.Main`]);
    });
    it('intent without a component: resolved among the app\'s activities only (-p)', () => {
      expect(attachCommand({ intent: { action: 'android.intent.action.VIEW', data: '{feedUrl}' } }, config)).to.deep.equal(['am', 'start', '-W', '-a', 'android.intent.action.VIEW', '-d', URL_, '-p', PKG]);
    });
    it('deep link: VIEW of the URI, {feedUrl} percent-encoded, to the app\'s package', () => {
      expect(attachCommand({ deepLink: 'exampleapp://subscribe?url={feedUrl}' }, config)).to.deep.equal(
        ['am', 'start', '-W', '-a', 'android.intent.action.VIEW', '-d', 'exampleapp://subscribe?url=http%3A%2F%2F127.0.0.1%3A8766%2Frss.xml', '-p', PKG],
      );
    });
    it('quotes what reaches the device shell: a URI with ? & ; is one word there', () => {
      const argv = attachCommand({ deepLink: 'exampleapp://s?a=1&b=2;{feedUrl}' }, config)!;
      expect(buildShellCommand(argv)).to.equal(`am start -W -a android.intent.action.VIEW -d 'exampleapp://s?a=1&b=2;http%3A%2F%2F127.0.0.1%3A8766%2Frss.xml' -p ${PKG}`);
    });
    it('has none for an sql step, whose statements and database come from the step or database.file', () => {
      const step = { sql: { statements: ['INSERT INTO feeds (url) VALUES ({feedUrl})'] } };
      expect(attachCommand(step, config)).to.equal(null);
      expect(attachStatements(step, config)).to.deep.equal([`INSERT INTO feeds (url) VALUES ('${URL_}')`]);
      expect(attachDatabaseFile(step, config)).to.equal('databases/app.db');
      expect(attachDatabaseFile({ sql: { file: 'databases/other.db', statements: ['SELECT 1'] } }, config)).to.equal('databases/other.db');
    });
  });

  describe('reading am start -W', () => {
    const step = { intent: { action: 'android.intent.action.VIEW', data: '{feedUrl}', component: '.Main' } };
    const argv = attachCommand(step, config)!;
    const ctx = { index: 0, count: 2, step, pkg: PKG, serial: 'emulator-5554' };
    const started = `Starting: Intent { act=android.intent.action.VIEW dat=http://127.0.0.1:8766/... cmp=${PKG}/.Main }\nStatus: ok\nLaunchState: COLD\nActivity: ${PKG}/.Main\nTotalTime: 420\nWaitTime: 431\nComplete\n`;

    it('accepts a launch of the app\'s activity', () => {
      expect(() => checkAttachStart(answer(started), argv, ctx)).to.not.throw();
    });
    it('refuses a component that does not exist, naming the step and the field to fix (exit 0, as am exits)', () => {
      const e = refusal(() => checkAttachStart(answer(`Starting: Intent { … }\nError type 3\nError: Activity class {${PKG}/${PKG}.Main} does not exist.\n`), argv, ctx));
      expect(e.message).to.match(/^feed\.attach step 1 of 2 \(intent\) failed on emulator-5554: `am start -W .* -n com\.example\.app\/\.Main` printed "Error: Activity class \{com\.example\.app\/com\.example\.app\.Main\} does not exist\."; com\.example\.app has no such activity: name one of its activities in feed\.attach\.0\.intent\.component/);
      expect(e.field).to.equal('feed.attach.0');
    });
    it('refuses an intent no activity takes', () => {
      const e = refusal(() => checkAttachStart(answer('Starting: Intent { act=android.intent.action.VIEW dat=http://127.0.0.1:8766/... pkg=com.example.app }\nError: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=http://127.0.0.1:8766/... flg=0x10000000 pkg=com.example.app }\n'), argv, ctx));
      expect(e.message).to.match(/no activity of com\.example\.app takes this intent: check feed\.attach\.0\.intent's action, data and mimeType/);
    });
    it('refuses a launch of the chooser (several activities matched) or of another app', () => {
      const e = refusal(() => checkAttachStart(answer(started.replace(`Activity: ${PKG}/.Main`, 'Activity: android/com.android.internal.app.ResolverActivity')), argv, ctx));
      expect(e.message).to.match(/opened android\/com\.android\.internal\.app\.ResolverActivity, not an activity of com\.example\.app .*name the activity in feed\.attach\.0\.intent\.component/);
    });
    it('refuses a non-zero exit with what the command said', () => {
      const e = refusal(() => checkAttachStart(answer('', 255, 'java.lang.SecurityException: Permission Denial'), argv, ctx));
      expect(e.message).to.match(/exited 255 \("java\.lang\.SecurityException: Permission Denial"\)/);
    });
  });

  describe('config rules across sections', () => {
    const BASE = { app: { package: PKG }, work: { uniqueName: 'feed-poll' }, windowMs: 172800000 };
    it('refuses an intent component of another app', () => {
      const e = refusal(() => parseConfig({ ...BASE, feed: { attach: [{ intent: { action: 'android.intent.action.VIEW', component: 'org.other/.Main' } }] } }, 'c.json'));
      expect(e.field).to.equal('feed.attach.0.intent.component');
      expect(e.message).to.match(/names an activity of org\.other, not of app\.package com\.example\.app/);
    });
    it('refuses an sql step without file when there is no database.file', () => {
      const e = refusal(() => parseConfig({ ...BASE, feed: { attach: [{ sql: { statements: ['SELECT 1'] } }] } }, 'c.json'));
      expect(e.field).to.equal('feed.attach.0.sql.file');
      expect(e.message).to.match(/there is no "database"; give the database with "file"/);
    });
    it('takes an sql step with its own file without a database, and an intent component of the app', () => {
      const c = parseConfig({ ...BASE, feed: { attach: [{ sql: { file: 'databases/x.db', statements: ['SELECT 1'] } }, { intent: { action: 'a.b.C', component: `${PKG}/.Main` } }] } }, 'c.json');
      expect(c.feed.attach).to.have.length(2);
    });
  });
});
