/**
 * No wrong pass: a run that never fetched the feed, a segment where nothing was checked, a
 * history cut inside its last run, the stranding trap of newest-first processing, and an item
 * whose only eligible runs promise a retry the history does not hold.
 */
import { expect } from 'chai';
import { checkHistory, checkSegment, type CheckResult } from '../../../src/checker/index.js';
import type { HistoryEvent, RequestEvent, RunFinishedEvent } from '../../../src/history/events.js';
import {
  A, B, C, H, T, WINDOW, counts, fetched, notified, published, run, runFinished, runStarted, stored,
} from './builders.js';

const FEED = { devicePort: 8766, path: '/rss.xml' };
const segment = (events: HistoryEvent[], over: { checkOrder?: boolean; properties?: string[] } = {}): CheckResult =>
  checkSegment(events, { windowMs: WINDOW, allowedDuplicates: 0, feed: FEED, ...over });
const kinds = (r: CheckResult): string[] => r.anomalies.map((a) => a.kind);

const asked = (t: number, runNumber: number, path: string, status: number): RequestEvent => ({
  type: 'request', t, run: runNumber, route: 'other', method: 'GET', path, status, headers: {},
});

describe('no wrong pass', () => {
  describe('a run that never fetched the feed (no-fetch)', () => {
    const refusedLine = '1760000000.100  4231  4250 W FeedPollWorker: Fetch of http://127.0.0.1:8765/feed.xml failed; retrying later: java.net.ConnectException: Failed to connect to /127.0.0.1:8765';
    const retried = (n: number, t: number, extra: Partial<RunFinishedEvent> = {}): HistoryEvent[] =>
      [runStarted(t, n), { ...runFinished(t + 1, n, 'retry'), ...extra }];

    it('is undecided, not a pass: names the URL served, the logcat line and feed.devicePort', () => {
      const events = [published(T, A, T - H), ...retried(1, T, { fetchError: { cause: 'connection-refused', line: refusedLine } })];
      const result = segment(events);
      expect(result.verdict).to.equal('unknown');
      expect(result.anomalies).to.deep.equal([{
        kind: 'no-fetch', item: '', run: 1,
        detail: 'run 1 ended retry without fetching the feed served at http://127.0.0.1:8766/rss.xml (feed.devicePort 8766, feed.path /rss.xml), so it is no sign of life and nothing it did with the feed was checked; ' +
          `logcat: "${refusedLine}"; nothing listened where the app connected: check feed.devicePort (the device port the app fetches from; adb reverse forwards only that one)`,
        evidence: [refusedLine],
      }]);
    });

    it('names feed.path when the app asked another path (a 404 is not a fetch)', () => {
      const events = [published(T, A, T - H), runStarted(T, 1), asked(T + 1, 1, '/feed.xml', 404), runFinished(T + 2, 1, 'failure')];
      const result = segment(events);
      expect(result.verdict).to.equal('unknown');
      expect(kinds(result)).to.deep.equal(['no-fetch']);
      expect(result.anomalies[0]!.detail).to.match(/the app asked GET \/feed\.xml → 404, not \/rss\.xml: check feed\.path/);
    });

    it('names the fix for cleartext refused and an unknown host', () => {
      const cleartext = 'W FeedPollWorker: java.net.UnknownServiceException: CLEARTEXT communication to 127.0.0.1 not permitted by network security policy';
      const host = 'W FeedPollWorker: java.net.UnknownHostException: Unable to resolve host "feeds.example.com": No address associated with hostname';
      const a = segment(retried(1, T, { fetchError: { cause: 'cleartext-not-permitted', line: cleartext } }));
      const b = segment(retried(1, T, { fetchError: { cause: 'unknown-host', line: host } }));
      expect(a.anomalies[0]!.detail).to.match(/network security config refuses cleartext HTTP/);
      expect(b.anomalies[0]!.detail).to.match(/does not resolve on the device: .*127\.0\.0\.1 or localhost on feed\.devicePort/);
    });

    it('counts a fetch that got an error status as a fetch: a 503 retried is checked by the retry property, not no-fetch', () => {
      const events = [published(T, A, T - H), runStarted(T, 1), fetched(T + 1, 1, [], 503), runFinished(T + 2, 1, 'retry'), ...run(2, T + H, [A], [A])];
      expect(segment(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 1, eligibleCount: 1 }), anomalies: [] });
    });

    describe('an app attached to its feed with feed.attach', () => {
      const attach = (t: number): HistoryEvent => ({ type: 'action', t, action: 'attach', argv: ['am', 'start', '-W', '-a', 'android.intent.action.VIEW', '-d', 'http://127.0.0.1:8766/rss.xml', '-n', 'p/.A'], via: 'shell', exitCode: 0 });
      const clear = (t: number): HistoryEvent => ({ type: 'action', t, action: 'clear-app-data', argv: ['pm', 'clear', 'p'], via: 'shell', exitCode: 0 });

      it('points a run that fetched nothing at feed.attach, and stays undecided', () => {
        const result = segment([attach(T - 1), published(T, A, T - H), runStarted(T, 1), runFinished(T + 1, 1)]);
        expect(result.verdict).to.equal('unknown');
        expect(kinds(result)).to.deep.equal(['no-fetch']);
        expect(result.anomalies[0]!.detail).to.match(/though feed\.attach pointed the app at the feed .*: check that feed\.attach really subscribes the app to http:\/\/127\.0\.0\.1:8766\/rss\.xml/);
      });

      it('reports a run between a pm clear and the next attach as informational (the app had no feed), and checks the runs after it', () => {
        const events = [attach(T - 3), clear(T - 2), runStarted(T - 1, 1), runFinished(T - 1, 1), attach(T), published(T, A, T - H), ...run(2, T + H, [A], [A])];
        const result = segment(events);
        expect(result.verdict).to.equal('pass');
        expect(result.anomalies).to.have.length(1);
        expect(result.anomalies[0]).to.include({ kind: 'no-fetch', run: 1, informational: true });
        expect(result.anomalies[0]!.detail).to.match(/ran after the app's data was cleared and before feed\.attach pointed the app at the feed again/);
      });

      it('keeps a run after the attach that fetched nothing undecided, even after a pm clear', () => {
        const events = [attach(T - 3), clear(T - 2), attach(T - 1), runStarted(T, 1), runFinished(T + 1, 1), published(T, A, T - H), ...run(2, T + H, [A], [A])];
        const result = segment(events);
        expect(result.verdict).to.equal('unknown');
        expect(result.anomalies[0]).to.not.have.property('informational');
      });

      it('keeps a run after a pm clear undecided when the app is not attached (a URL in its build)', () => {
        const events = [clear(T - 2), runStarted(T - 1, 1), runFinished(T - 1, 1), published(T, A, T - H), ...run(2, T + H, [A], [A])];
        expect(segment(events).verdict).to.equal('unknown');
      });
    });

    it('leaves a killed or refused run to its own kind', () => {
      const events = [published(T, A, T - H), runStarted(T, 1), runFinished(T + 1, 1, 'killed'), ...run(2, T + H, [A], [A])];
      expect(kinds(segment(events))).to.deep.equal([]);
    });
  });

  describe('nothing checked', () => {
    it('makes an empty segment (a config line alone) unknown, as Elle gives :unknown for an empty history', () => {
      expect(segment([])).to.deep.equal({
        verdict: 'unknown', counts: counts({}),
        anomalies: [{
          kind: 'nothing-checked', item: '',
          detail: 'the segment holds no feed fetched in a 2xx response and no observation a property check reads: nothing was checked, so it cannot pass',
        }],
      });
    });

    it('passes a run that fetched an empty feed in a 2xx response: the app was seen to go through it', () => {
      expect(segment([runStarted(T, 1), fetched(T + 1, 1, []), runFinished(T + 2, 1)]).verdict).to.equal('pass');
    });
  });

  describe('a history cut inside its last run', () => {
    // no-db-check: run 2 repeats what run 1 notified; cut right after run 2's run-started.
    const full = [published(T, A, T - H), published(T, B, T - H), ...run(1, T, [A, B], [A, B]), ...run(2, T + H, [A, B], [A, B])];
    const cut = full.slice(0, full.findIndex((e) => e.type === 'run-started' && e.run === 2) + 1);

    it('fails whole, and is unknown (never pass) when cut after its last run-started', () => {
      expect(segment(full).verdict).to.equal('fail');
      const result = segment(cut);
      expect(result.verdict).to.equal('unknown');
      expect(kinds(result)).to.deep.equal(['unfinished-run']);
    });

    it('makes an item the cut run stored without a notification undecided, not lost', () => {
      const events = [published(T, A, T - H), runStarted(T, 1), fetched(T + 1, 1, [A]), stored(T + 2, 1, A)];
      const result = checkHistory(events, { windowMs: WINDOW, allowedDuplicates: 0 });
      expect(result.verdict).to.equal('unknown');
      expect(result.anomalies.map((a) => [a.kind, a.undecided ?? false])).to.deep.equal([['unfinished-run', false], ['lost', true]]);
      expect(result.anomalies[1]!.detail).to.match(/run 1, which made it eligible, has no run-finished/);
    });
  });

  describe('the stranding trap (newest-first, killed after the newest, the oldest ages out)', () => {
    const X = 'https://strand.example/x';
    const Y = 'https://strand.example/y';
    const Z = 'https://strand.example/z';
    const D0 = 1760000000000;
    const day = 86400000;
    const strand = (secondPosts: string[]): HistoryEvent[] => [
      published(D0, X, D0), published(D0, Y, D0 + 50000000), published(D0, Z, D0 + 80000000),
      runStarted(D0 + 84000000, 1), fetched(D0 + 84000100, 1, [X, Y, Z]), notified(D0 + 84000200, 1, Z), stored(D0 + 84000230, 1, Z),
      runFinished(D0 + 84000300, 1, 'killed'),
      runStarted(D0 + 90000000, 2), fetched(D0 + 90000100, 2, [X, Y, Z]),
      ...secondPosts.flatMap((item, i) => [notified(D0 + 90000200 + i, 2, item), stored(D0 + 90000230 + i, 2, item)]),
      runFinished(D0 + 90000300, 2),
    ];
    const check = (events: HistoryEvent[], checkOrder = false): CheckResult =>
      checkSegment(events, { windowMs: day, allowedDuplicates: 1, checkOrder });

    it('loses the oldest item the killed run owed, naming the post that overtook it, with the order check off', () => {
      const result = check(strand([Y]));
      expect(result.verdict).to.equal('fail');
      const lost = result.anomalies.filter((a) => a.kind === 'lost');
      expect(lost.map((a) => [a.item, a.run, a.runs])).to.deep.equal([[X, 1, [1]]]);
      expect(lost[0]!.detail).to.match(/stranded by newest-first processing/);
      expect(lost[0]!.detail).to.include(`posted the newer ${Z}`);
      expect(lost[0]!.detail).to.match(/outside the 24 h window/);
    });

    it('loses it with the order check on as well (every scenario)', () => {
      expect(check(strand([Y]), true).anomalies.filter((a) => a.kind === 'lost').map((a) => a.item)).to.deep.equal([X]);
    });

    it('passes the same kill when the later run notifies what the killed run owed (recovered)', () => {
      // Run 2 within the window of X: X and Y both notified then.
      const events = strand([X, Y]).map((e) => (e.type === 'run-started' && e.run === 2 ? { ...e, deviceTime: D0 + 85000000 } : e));
      const result = check(events);
      expect(result.verdict).to.equal('pass');
      expect(kinds(result)).to.deep.equal(['recovered', 'recovered']);
    });

    it('owes nothing for an older item already stored in the epoch (an oldest-first app killed after its newest)', () => {
      const events = [
        published(T, A, T - 3 * H), published(T, B, T - H),
        ...run(1, T, [A], [A]),
        runStarted(T + H, 2), fetched(T + H + 1, 2, [A, B]), notified(T + H + 2, 2, B), runFinished(T + H + 3, 2, 'killed'),
      ];
      expect(checkSegment(events, { windowMs: WINDOW, allowedDuplicates: 1 }).verdict).to.equal('pass');
    });
  });

  describe('an item whose only eligible runs promise a retry', () => {
    const events = (outcome: 'retry' | 'failure'): HistoryEvent[] => [published(T, A, T - H), published(T, C, T - H), ...run(1, T, [A, C], [C], outcome)];

    it('is undecided, not lost, when no later run is in the history', () => {
      for (const outcome of ['retry', 'failure'] as const) {
        const result = checkHistory(events(outcome), { windowMs: WINDOW, allowedDuplicates: 0 });
        expect(result.verdict, outcome).to.equal('unknown');
        expect(result.anomalies.map((a) => [a.kind, a.item, a.undecided])).to.deep.equal([['lost', A, true]]);
        expect(result.anomalies[0]!.detail).to.include(`ended ${outcome} and no later run is in the history`);
      }
    });

    it('is lost once a later run went by without notifying it', () => {
      const result = checkHistory([...events('retry'), ...run(2, T + H, [A, C], [])], { windowMs: WINDOW, allowedDuplicates: 0 });
      expect(result.verdict).to.equal('fail');
      expect(result.anomalies.map((a) => [a.kind, a.item, a.undecided ?? false])).to.deep.equal([['lost', A, false]]);
    });

    it('is lost when a run that made it eligible ended success', () => {
      const result = checkHistory([published(T, A, T - H), ...run(1, T, [A], [])], { windowMs: WINDOW, allowedDuplicates: 0 });
      expect(result.verdict).to.equal('fail');
    });
  });
});
