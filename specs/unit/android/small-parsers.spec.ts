import { expect } from 'chai';
import { parseBroadcastResult, parseStartActivity } from '../../../src/android/parsers/activity-manager.js';
import { classifyRunAsError, isNoSuchFile } from '../../../src/android/parsers/run-as.js';
import { parseSharedPrefs, SharedPrefsFormatError } from '../../../src/android/parsers/shared-prefs.js';
import { loadFixture } from './fixtures.js';

describe('shared preferences XML', () => {
  it('reads every value type, unescaping text', () => {
    expect(parseSharedPrefs(loadFixture('34/shared-prefs-feed_prefs.txt').body)).to.deep.equal({
      last_seen_published_at: { type: 'long', value: 1716990000000 },
      feed_url: { type: 'string', value: 'http://127.0.0.1:8765/feed.xml?a=1&b="2"' },
      channel_created: { type: 'boolean', value: true },
      runs: { type: 'int', value: 3 },
      seen: { type: 'set', value: ['https://feed.example.com/items/1', 'https://feed.example.com/items/2'] },
      cursor: { type: 'null', value: null },
    });
  });

  it('reads an empty map and rejects binary XML', () => {
    expect(parseSharedPrefs("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map />\n")).to.deep.equal({});
    expect(() => parseSharedPrefs('ABX\0binary')).to.throw(SharedPrefsFormatError);
  });
});

describe('am output', () => {
  it('reads a missing-activity error', () => {
    const f = loadFixture('34/am-start-missing-activity.txt');
    expect(parseStartActivity('Starting: Intent { cmp=com.example.feednotifier/.Missing }\n', f.body)).to.deep.equal({
      kind: 'error',
      message: 'Error: Activity class {com.example.feednotifier/com.example.feednotifier.Missing} does not exist.',
    });
  });

  it('treats "brought to the front" as started, with the warning', () => {
    expect(parseStartActivity('Starting: Intent { cmp=p/.A }\nWarning: Activity not started, its current task has been brought to the front\n', '')).to.deep.equal({
      kind: 'started',
      warning: 'Warning: Activity not started, its current task has been brought to the front',
      activity: null,
    });
  });

  it('reads broadcast results with and without data', () => {
    expect(parseBroadcastResult(loadFixture('34/am-broadcast-diagnostics.txt').body)).to.deep.equal({ resultCode: 0, data: null });
    expect(parseBroadcastResult('Broadcasting: Intent { act=x }\nBroadcast completed: result=-1, data="{\\"a\\":1}"\n')).to.deep.equal({ resultCode: -1, data: '{\\"a\\":1}' });
    expect(parseBroadcastResult('Security exception: nope\n')).to.equal(null);
  });
});

describe('run-as errors', () => {
  it('classifies the refusal texts', () => {
    expect(classifyRunAsError(loadFixture('34/run-as-not-debuggable.txt').body)).to.equal('not-debuggable');
    expect(classifyRunAsError('run-as: unknown package: com.nope\n')).to.equal('unknown-package');
    expect(classifyRunAsError('cat: databases/x.db: No such file or directory\n')).to.equal(null);
    expect(isNoSuchFile('cat: databases/x.db: No such file or directory\n')).to.equal(true);
  });
});
