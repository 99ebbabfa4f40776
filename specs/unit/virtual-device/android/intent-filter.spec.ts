/**
 * How the virtual device resolves an implicit intent and prints an Intent, as Android does:
 * IntentFilter.matchData and matchCategories under MATCH_DEFAULT_ONLY, PatternMatcher's simple
 * glob (android:pathPattern), and Uri.toSafeString in Intent.toString (src/virtual-device/system/
 * intent-filter.ts, intent.ts; sources cited there).
 */
import { expect } from 'chai';
import type { IntentFilterSpec } from '../../../../src/virtual-device/system/app-framework.js';
import { matchGlobPattern, matchesActivityFilter } from '../../../../src/virtual-device/system/intent-filter.js';
import { intentToString, toSafeString, type Intent } from '../../../../src/virtual-device/system/intent.js';

const VIEW = 'android.intent.action.VIEW';
const CATS = ['android.intent.category.DEFAULT', 'android.intent.category.BROWSABLE'];
// Feeder's AddFeedFromShareActivity filters (spacecowboy/Feeder app/src/main/AndroidManifest.xml).
const BY_TYPE: IntentFilterSpec = { actions: [VIEW], categories: CATS, schemes: ['http', 'https'], hosts: ['*'], mimeTypes: ['text/xml', 'application/rss+xml'] };
const BY_PATH: IntentFilterSpec = { actions: [VIEW], categories: CATS, schemes: ['http', 'https'], hosts: ['*'], pathPatterns: ['.*\\.xml', '.*\\.rss'] };
const view = (data: string, type?: string): Intent => ({ action: VIEW, data, flags: 0, ...(type !== undefined ? { type } : {}) });

describe('virtual device: intent filters', () => {
  it('matches android:pathPattern as PatternMatcher\'s simple glob', () => {
    expect(matchGlobPattern('.*\\.xml', '/feed.xml')).to.equal(true);
    expect(matchGlobPattern('.*\\.xml', '/feedxml')).to.equal(false);
    expect(matchGlobPattern('.*\\.xml', '/feed.xml.bak')).to.equal(false);
    expect(matchGlobPattern('/a.*', '/abc')).to.equal(true);
    expect(matchGlobPattern('/ab*c', '/abbbc')).to.equal(true);
    expect(matchGlobPattern('/ab*c', '/ac')).to.equal(true);
    expect(matchGlobPattern('/ab*c', '/adc')).to.equal(false);
  });

  it('takes a feed URL by its path, and one with a feed type by its type; an untyped URL needs the path filter', () => {
    expect(matchesActivityFilter(BY_PATH, view('http://127.0.0.1:8765/feed.xml'))).to.equal(true);
    expect(matchesActivityFilter(BY_PATH, view('http://127.0.0.1:8765/feed.xml?x=1'))).to.equal(true);
    expect(matchesActivityFilter(BY_PATH, view('http://127.0.0.1:8765/feed'))).to.equal(false);
    expect(matchesActivityFilter(BY_TYPE, view('http://127.0.0.1:8765/feed'))).to.equal(false);
    expect(matchesActivityFilter(BY_TYPE, view('http://127.0.0.1:8765/feed', 'application/rss+xml'))).to.equal(true);
    // A type the path filter does not list: NO_MATCH_TYPE there.
    expect(matchesActivityFilter(BY_PATH, view('http://127.0.0.1:8765/feed.xml', 'application/rss+xml'))).to.equal(false);
  });

  it('refuses another scheme, another action, and a filter without CATEGORY_DEFAULT (MATCH_DEFAULT_ONLY)', () => {
    expect(matchesActivityFilter(BY_PATH, view('feed://127.0.0.1/feed.xml'))).to.equal(false);
    expect(matchesActivityFilter(BY_PATH, { ...view('http://h/feed.xml'), action: 'android.intent.action.SEND' })).to.equal(false);
    expect(matchesActivityFilter({ ...BY_PATH, categories: ['android.intent.category.BROWSABLE'] }, view('http://h/feed.xml'))).to.equal(false);
  });

  it('prints intent data as Uri.toSafeString: an http URL as //host:port/...', () => {
    expect(toSafeString('http://127.0.0.1:8765/feed.xml?secret=1')).to.equal('http://127.0.0.1:8765/...');
    expect(toSafeString('tel:555-1234')).to.equal('tel:xxx-xxxx');
    expect(toSafeString('app://subscribe?url=http%3A%2F%2Fh%2Fa#frag')).to.equal('app://subscribe?url=http://h/a');
    expect(intentToString({ ...view('http://127.0.0.1:8765/feed.xml'), package: 'p' })).to.equal('Intent { act=android.intent.action.VIEW dat=http://127.0.0.1:8765/... pkg=p }');
  });
});
