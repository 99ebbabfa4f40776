/**
 * The checker in Jepsen/Elle's shape: each case is a tiny history built from the builders, and
 * the whole result is compared with deep.equal. Every definition of docs/design.md §5 and its edge.
 */
import { expect } from 'chai';
import { checkHistory, createChecker } from '../../../src/checker/index.js';
import type { CheckOptions, CheckResult } from '../../../src/checker/index.js';
import type { HistoryEvent } from '../../../src/history/events.js';
import {
  A, B, C, D, H, T, WINDOW, ZERO, counts, fetched, forgotten, notified, published, run, runFinished,
  runStarted, shed, silentUpdate, stored, updated,
} from './builders.js';

const opts = (allowedDuplicates = 0): CheckOptions => ({ windowMs: WINDOW, allowedDuplicates });
const check = (events: HistoryEvent[], allowedDuplicates = 0): CheckResult => checkHistory(events, opts(allowedDuplicates));

/** A at T-3h, B at T-2h, C at T-1h. */
const feedABC = (): HistoryEvent[] => [published(T - 10 * H, A, T - 3 * H), published(T - 10 * H, B, T - 2 * H), published(T - 10 * H, C, T - 1 * H)];
const feedAB = (): HistoryEvent[] => feedABC().slice(0, 2);

describe('checker: checkHistory', () => {
  describe('empty and sane', () => {
    it('passes an empty history', () => {
      expect(check([])).to.deep.equal({ verdict: 'pass', counts: ZERO, anomalies: [] });
    });

    it('passes one run that notifies every eligible item once', () => {
      expect(check([...feedAB(), ...run(1, T, [A, B], [A, B])])).to.deep.equal({
        verdict: 'pass', counts: counts({ notifiedCount: 2, eligibleCount: 2 }), anomalies: [],
      });
    });

    it('passes back-to-back runs where the second posts nothing', () => {
      expect(check([...feedAB(), ...run(1, T, [A, B], [A, B]), ...run(2, T + 24 * H, [A, B], [])])).to.deep.equal({
        verdict: 'pass', counts: counts({ notifiedCount: 2, eligibleCount: 2 }), anomalies: [],
      });
    });

    it('passes thirty days of daily runs, five new items a day, posted oldest first', () => {
      const events: HistoryEvent[] = [];
      const day = (d: number, k: number): string => `https://feed.example/d${d}-${k}`;
      for (let d = 1; d <= 30; d++) {
        const now = T + d * 24 * H;
        for (let k = 5; k >= 1; k--) events.push(published(now - 6 * H, day(d, k), now - k * H));
        const feed = [1, 2, 3, 4, 5].flatMap((k) => [day(d - 1, k), day(d, k)]).filter((i) => !i.includes('/d0-'));
        events.push(...run(d, now, feed, [5, 4, 3, 2, 1].map((k) => day(d, k))));
      }
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 150, eligibleCount: 150 }), anomalies: [] });
    });
  });

  describe('lost', () => {
    it('reports an eligible item never notified, with the run it became eligible in', () => {
      expect(check([...feedAB(), ...run(1, T, [A, B], [A])])).to.deep.equal({
        verdict: 'fail',
        counts: counts({ lostCount: 1, notifiedCount: 1, eligibleCount: 2 }),
        anomalies: [{
          kind: 'lost', item: B, run: 1, epoch: 0,
          detail: 'never notified in epoch 0, although eligible from run 1 on ("B", published 2024-06-01T10:00:00.000Z)',
        }],
      });
    });

    it('counts an item exactly windowMs old as eligible, one ms older as not', () => {
      const atEdge = check([published(T - 50 * H, A, T - WINDOW), ...run(1, T, [A], [])]);
      expect(atEdge.verdict).to.equal('fail');
      expect(atEdge.counts).to.deep.equal(counts({ lostCount: 1, eligibleCount: 1 }));
      expect(check([published(T - 50 * H, A, T - WINDOW - 1), ...run(1, T, [A], [])])).to.deep.equal({
        verdict: 'pass', counts: ZERO, anomalies: [],
      });
    });

    it('uses the run-started deviceTime, not the event time, as the window\'s now', () => {
      const events = [published(T, A, T - 3 * H), runStarted(T, 1, T + 50 * H), fetched(T + 1, 1, [A]), runFinished(T + 2, 1)];
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: ZERO, anomalies: [] });
    });

    it('does not make items of a non-2xx response eligible', () => {
      const events = [
        ...feedAB(),
        runStarted(T, 1), fetched(T + 1, 1, [A, B], 503), runFinished(T + 2, 1, 'retry'),
        ...run(2, T + H, [A, B], [A, B]),
      ];
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 2, eligibleCount: 2 }), anomalies: [] });
    });
  });

  describe('duplicated and tolerated', () => {
    const twice = (): HistoryEvent[] => [...feedAB(), ...run(1, T, [A, B], [A, B]), ...run(2, T + 24 * H, [A, B], [A, B])];
    const acrossRuns = 'run 1, which notified it before, ended success, not killed: the app should have found its row in run 2';
    /** Run 1 notifies A, B and C, is killed before storing any of them (rows written after the loop); run 2 repeats all three. */
    const killedBeforeAnyRow = (): HistoryEvent[] => [
      ...feedABC(),
      runStarted(T, 1), fetched(T + 1, 1, [A, B, C]), notified(T + 2, 1, A), notified(T + 3, 1, B), notified(T + 4, 1, C), runFinished(T + 5, 1, 'killed'),
      ...run(2, T + H, [A, B, C], [A, B, C]),
    ];

    it('fails items repeated across two runs none of which was killed, naming the runs and why', () => {
      expect(check(twice())).to.deep.equal({
        verdict: 'fail',
        counts: counts({ duplicatedCount: 2, notifiedCount: 4, eligibleCount: 2 }),
        anomalies: [
          { kind: 'duplicated', item: A, epoch: 0, runs: [1, 2], detail: `notified 2 times in epoch 0: runs 1 and 2; ${acrossRuns}` },
          { kind: 'duplicated', item: B, epoch: 0, runs: [1, 2], detail: `notified 2 times in epoch 0: runs 1 and 2; ${acrossRuns}` },
        ],
      });
    });

    it('fails a repeat across two successful runs even with allowedDuplicates 1 (it is per killed run, not per item)', () => {
      const result = check(twice(), 1);
      expect(result.verdict).to.equal('fail');
      expect(result.anomalies.map((a) => [a.kind, a.item, a.tolerated])).to.deep.equal([['duplicated', A, undefined], ['duplicated', B, undefined]]);
    });

    it('fails a repeat inside one uninterrupted run', () => {
      const events = [published(T, A, T - 3 * H), runStarted(T, 1), fetched(T + 1, 1, [A]), notified(T + 2, 1, A), notified(T + 3, 1, A), stored(T + 4, 1, A), runFinished(T + 5, 1)];
      expect(check(events, 1)).to.deep.equal({
        verdict: 'fail',
        counts: counts({ duplicatedCount: 1, notifiedCount: 2, eligibleCount: 1 }),
        anomalies: [{ kind: 'duplicated', item: A, epoch: 0, runs: [1], detail: 'notified 2 times in epoch 0: run 1 (2 times); run 1 notified it twice: a run must notify an item once' }],
      });
    });

    it('tolerates one item repeated after a kill that came before its row (allowedDuplicates 1), naming the kill', () => {
      const events = [
        ...feedAB(),
        runStarted(T, 1), fetched(T + 1, 1, [A, B]), notified(T + 2, 1, A), runFinished(T + 3, 1, 'killed'),
        ...run(2, T + H, [A, B], [A, B]),
      ];
      expect(check(events, 1)).to.deep.equal({
        verdict: 'pass',
        counts: counts({ duplicatedCount: 1, notifiedCount: 3, eligibleCount: 2 }),
        anomalies: [{
          kind: 'duplicated', item: A, epoch: 0, runs: [1, 2], tolerated: true, excusedBy: 1,
          detail: 'notified 2 times in epoch 0: runs 1 and 2; tolerated: run 1 ended killed after notifying it and before storing its row (the notify-then-record window)',
        }],
      });
    });

    it('fails two items repeated after one kill: the first takes the excuse, the second says why not', () => {
      const result = check(killedBeforeAnyRow(), 1);
      const secondWhy = 'run 1 was killed before storing it, but that kill already excuses https://feed.example/a (allowedDuplicates 1 per killed run): more items repeated after one kill means the rows are written late, not right after each notification';
      expect(result).to.deep.equal({
        verdict: 'fail',
        counts: counts({ duplicatedCount: 3, notifiedCount: 6, eligibleCount: 3 }),
        anomalies: [
          {
            kind: 'duplicated', item: A, epoch: 0, runs: [1, 2], tolerated: true, excusedBy: 1,
            detail: 'notified 2 times in epoch 0: runs 1 and 2; tolerated: run 1 ended killed after notifying it and before storing its row (the notify-then-record window)',
          },
          { kind: 'duplicated', item: B, epoch: 0, runs: [1, 2], detail: `notified 2 times in epoch 0: runs 1 and 2; ${secondWhy}` },
          { kind: 'duplicated', item: C, epoch: 0, runs: [1, 2], detail: `notified 2 times in epoch 0: runs 1 and 2; ${secondWhy.replace('excuses https://feed.example/a', 'excuses https://feed.example/a')}` },
        ],
      });
    });

    it('tolerates as many items per kill as allowedDuplicates says', () => {
      expect(check(killedBeforeAnyRow(), 3).verdict).to.equal('pass');
      expect(check(killedBeforeAnyRow(), 2).anomalies.filter((a) => a.tolerated !== true).map((a) => a.item)).to.deep.equal([C]);
    });

    it('fails a repeat after a kill that came after the row was stored', () => {
      const events = [
        published(T, A, T - 3 * H),
        runStarted(T, 1), fetched(T + 1, 1, [A]), notified(T + 2, 1, A), stored(T + 3, 1, A), runFinished(T + 4, 1, 'killed'),
        ...run(2, T + H, [A], [A]),
      ];
      expect(check(events, 1).anomalies).to.deep.equal([{
        kind: 'duplicated', item: A, epoch: 0, runs: [1, 2],
        detail: 'notified 2 times in epoch 0: runs 1 and 2; run 1 was killed only after it stored the item\'s row, so run 2 should have found the row',
      }]);
    });

    it('fails a repeat after a kill with allowedDuplicates 0, and says so', () => {
      const events = [published(T, A, T - 3 * H), runStarted(T, 1), fetched(T + 1, 1, [A]), notified(T + 2, 1, A), runFinished(T + 3, 1, 'killed'), ...run(2, T + H, [A], [A])];
      expect(check(events, 0).anomalies.map((a) => a.detail)).to.deep.equal([
        'notified 2 times in epoch 0: runs 1 and 2; run 1 was killed before storing it, but allowedDuplicates is 0: no repeat is tolerated',
      ]);
    });

    it('tolerates a chain of kills, each excusing the repeat that follows it', () => {
      const killedAfterNotify = (n: number, t: number): HistoryEvent[] => [runStarted(t, n), fetched(t + 1, n, [A]), notified(t + 2, n, A), runFinished(t + 3, n, 'killed')];
      const events = [published(T, A, T - 3 * H), ...killedAfterNotify(1, T), ...killedAfterNotify(2, T + H), ...run(3, T + 2 * H, [A], [A])];
      const result = check(events, 1);
      expect(result.verdict).to.equal('pass');
      expect(result.anomalies).to.deep.equal([{
        kind: 'duplicated', item: A, epoch: 0, runs: [1, 2, 3], tolerated: true, excusedBy: 2,
        detail: 'notified 3 times in epoch 0: runs 1, 2 and 3; tolerated: run 1 ended killed after notifying it and before storing its row (the notify-then-record window); run 2 ended killed after notifying it and before storing its row (the notify-then-record window)',
      }]);
    });

    it('passes a kill with no repeat: the next run finds the row', () => {
      const events = [
        ...feedAB(),
        runStarted(T, 1), fetched(T + 1, 1, [A, B]), notified(T + 2, 1, A), stored(T + 3, 1, A), runFinished(T + 4, 1, 'killed'),
        ...run(2, T + H, [A, B], [B]),
      ];
      expect(check(events, 1)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 2, eligibleCount: 2 }), anomalies: [] });
    });

    it('fails a re-post after the item left the window (same epoch: duplicated, not unexpected)', () => {
      const events = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), ...run(2, T + 50 * H, [A], [A])];
      expect(check(events)).to.deep.equal({
        verdict: 'fail',
        counts: counts({ duplicatedCount: 1, notifiedCount: 2, eligibleCount: 1 }),
        anomalies: [{ kind: 'duplicated', item: A, epoch: 0, runs: [1, 2], detail: `notified 2 times in epoch 0: runs 1 and 2; ${acrossRuns}` }],
      });
    });

    it('counts an update that alerts (no FLAG_ONLY_ALERT_ONCE) as a repeat', () => {
      const events = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), runStarted(T + H, 2), fetched(T + H + 1, 2, [A]), updated(T + H + 2, 2, A), runFinished(T + H + 3, 2)];
      expect(check(events, 1)).to.deep.equal({
        verdict: 'fail',
        counts: counts({ duplicatedCount: 1, notifiedCount: 2, eligibleCount: 1 }),
        anomalies: [{ kind: 'duplicated', item: A, epoch: 0, runs: [1, 2], detail: `notified 2 times in epoch 0: runs 1 and 2; ${acrossRuns}` }],
      });
    });

    it('reports a silent update (FLAG_ONLY_ALERT_ONCE) as the informational silent-repost, not a repeat', () => {
      const events = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), runStarted(T + H, 2), fetched(T + H + 1, 2, [A]), silentUpdate(T + H + 2, 2, A), runFinished(T + H + 3, 2)];
      expect(check(events)).to.deep.equal({
        verdict: 'pass',
        counts: counts({ notifiedCount: 2, eligibleCount: 1 }),
        anomalies: [{
          kind: 'silent-repost', item: A, epoch: 0, runs: [1, 2],
          detail: 'updated 1 time in epoch 0 after its first notification (run 2) with FLAG_ONLY_ALERT_ONCE: the user is not alerted again',
        }],
      });
    });

    it('judges a post after a silent update against the silent update\'s run', () => {
      const events = [
        published(T, A, T - 3 * H), ...run(1, T, [A], [A]),
        runStarted(T + H, 2), fetched(T + H + 1, 2, [A]), silentUpdate(T + H + 2, 2, A), runFinished(T + H + 3, 2, 'killed'),
        ...run(3, T + 2 * H, [A], [A]),
      ];
      const result = check(events, 1);
      expect(result.verdict).to.equal('pass');
      expect(result.anomalies.map((a) => [a.kind, a.tolerated, a.excusedBy])).to.deep.equal([['duplicated', true, 2], ['silent-repost', undefined, undefined]]);
    });

    it('does not count a repeat after forgotten (a new epoch)', () => {
      const events = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), forgotten(T + H, [A]), ...run(2, T + 2 * H, [A], [A])];
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 2, eligibleCount: 2 }), anomalies: [] });
    });
  });

  describe('epochs (forgotten)', () => {
    it('passes a re-post after all rows were forgotten', () => {
      const events = [...feedAB(), ...run(1, T, [A, B], [A, B]), forgotten(T + H), ...run(2, T + 2 * H, [A, B], [A, B])];
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 4, eligibleCount: 4 }), anomalies: [] });
    });

    it('starts a new epoch only for the items forgotten', () => {
      const events = [...feedAB(), ...run(1, T, [A, B], [A, B]), forgotten(T + H, [A]), ...run(2, T + 2 * H, [A, B], [A, B])];
      expect(check(events)).to.deep.equal({
        verdict: 'fail',
        counts: counts({ duplicatedCount: 1, notifiedCount: 4, eligibleCount: 3 }),
        anomalies: [{ kind: 'duplicated', item: B, epoch: 0, runs: [1, 2], detail: 'notified 2 times in epoch 0: runs 1 and 2; run 1, which notified it before, ended success, not killed: the app should have found its row in run 2' }],
      });
    });

    it('loses items not re-posted after their rows were forgotten (a dedup kept elsewhere)', () => {
      const events = [...feedAB(), ...run(1, T, [A, B], [A, B]), forgotten(T + H, [A, A]), ...run(2, T + 2 * H, [A, B], [])];
      expect(check(events)).to.deep.equal({
        verdict: 'fail',
        counts: counts({ lostCount: 1, notifiedCount: 2, eligibleCount: 3 }),
        anomalies: [{ kind: 'lost', item: A, run: 2, epoch: 1, detail: 'never notified in epoch 1, although eligible from run 2 on ("A", published 2024-06-01T09:00:00.000Z)' }],
      });
    });

    it('counts an update as the notification of a new epoch (the old one still showing)', () => {
      const events = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), forgotten(T + H), runStarted(T + 2 * H, 2), fetched(T + 2 * H + 1, 2, [A]), updated(T + 2 * H + 2, 2, A), runFinished(T + 2 * H + 3, 2)];
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 2, eligibleCount: 2 }), anomalies: [] });
    });

    it('after forgotten, an item outside the window is not eligible: re-posting it is unexpected', () => {
      const events = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), forgotten(T + H), ...run(2, T + 50 * H, [A], [A])];
      expect(check(events)).to.deep.equal({
        verdict: 'fail',
        counts: counts({ unexpectedCount: 1, notifiedCount: 2, eligibleCount: 1 }),
        anomalies: [{
          kind: 'unexpected', item: A, run: 2, epoch: 1,
          detail: 'notified in run 2 but never eligible in epoch 1: it was outside the 48 h window when run 2 fetched it (published 2024-06-01T09:00:00.000Z, 53 h old)',
        }],
      });
      const correct = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), forgotten(T + H), ...run(2, T + 50 * H, [A], [])];
      expect(check(correct)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 1, eligibleCount: 1 }), anomalies: [] });
    });
  });

  describe('killed, unfinished and refused runs', () => {
    /** Run 1 notifies and records A, notifies B, is killed before B's row; run 2 goes on. */
    const killedBetweenNotifyAndRecord = (): HistoryEvent[] => [
      ...feedABC(),
      runStarted(T, 1), fetched(T + 1, 1, [A, B, C]), notified(T + 2, 1, A), stored(T + 3, 1, A), notified(T + 4, 1, B), runFinished(T + 5, 1, 'killed'),
      runStarted(T + H, 2), fetched(T + H + 1, 2, [A, B, C]), notified(T + H + 2, 2, B), stored(T + H + 3, 2, B), notified(T + H + 4, 2, C), stored(T + H + 5, 2, C), runFinished(T + H + 6, 2),
    ];

    it('tolerates the notify-then-record duplicate with allowedDuplicates 1', () => {
      expect(check(killedBetweenNotifyAndRecord(), 1)).to.deep.equal({
        verdict: 'pass',
        counts: counts({ duplicatedCount: 1, notifiedCount: 4, eligibleCount: 3 }),
        anomalies: [{
          kind: 'duplicated', item: B, epoch: 0, runs: [1, 2], tolerated: true, excusedBy: 1,
          detail: 'notified 2 times in epoch 0: runs 1 and 2; tolerated: run 1 ended killed after notifying it and before storing its row (the notify-then-record window)',
        }],
      });
    });

    it('fails the same history with allowedDuplicates 0', () => {
      const result = check(killedBetweenNotifyAndRecord(), 0);
      expect(result.verdict).to.equal('fail');
      expect(result.anomalies).to.deep.equal([{
        kind: 'duplicated', item: B, epoch: 0, runs: [1, 2],
        detail: 'notified 2 times in epoch 0: runs 1 and 2; run 1 was killed before storing it, but allowedDuplicates is 0: no repeat is tolerated',
      }]);
    });

    it('does not make the items a killed run never handled eligible (not recovered either)', () => {
      const events = [...feedAB(), runStarted(T, 1), fetched(T + 1, 1, [A, B]), notified(T + 2, 1, A), stored(T + 3, 1, A), runFinished(T + 4, 1, 'killed')];
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 1, eligibleCount: 1 }), anomalies: [] });
    });

    it('loses an item a killed run recorded but never notified (record-before-notify)', () => {
      const events = [
        ...feedAB(),
        runStarted(T, 1), fetched(T + 1, 1, [A, B]), stored(T + 2, 1, A), runFinished(T + 3, 1, 'killed'),
        ...run(2, T + H, [A, B], [B]),
      ];
      expect(check(events)).to.deep.equal({
        verdict: 'fail',
        counts: counts({ lostCount: 1, notifiedCount: 1, eligibleCount: 2 }),
        anomalies: [{ kind: 'lost', item: A, run: 1, epoch: 0, detail: 'never notified in epoch 0, although eligible from run 1 on ("A", published 2024-06-01T09:00:00.000Z)' }],
      });
    });

    it('treats a run the history ends in like a killed one, and makes it undecided: the rest of the run is not in the history', () => {
      const events = [...feedAB(), runStarted(T, 1), fetched(T + 1, 1, [A, B]), notified(T + 2, 1, A)];
      expect(check(events)).to.deep.equal({
        verdict: 'unknown',
        counts: counts({ notifiedCount: 1, eligibleCount: 1 }),
        anomalies: [{
          kind: 'unfinished-run', item: '', run: 1,
          detail: 'run 1 has no run-finished: the history ends inside it (cut off?), so what it would have notified is not in the history and its items are undecided',
        }],
      });
    });

    it('does not depend on the order of fetched and notified within a run (fetched recorded last)', () => {
      const events = [
        ...feedAB(),
        runStarted(T, 1), notified(T + 2, 1, A), fetched(T + 3, 1, [A, B]), runFinished(T + 4, 1, 'killed'),
        runStarted(T + H, 2), notified(T + H + 1, 2, A), notified(T + H + 2, 2, B), stored(T + H + 3, 2, A), stored(T + H + 3, 2, B), fetched(T + H + 4, 2, [A, B]), runFinished(T + H + 5, 2),
      ];
      expect(check(events, 1)).to.deep.equal({
        verdict: 'pass',
        counts: counts({ duplicatedCount: 1, notifiedCount: 3, eligibleCount: 2 }),
        anomalies: [{
          kind: 'duplicated', item: A, epoch: 0, runs: [1, 2], tolerated: true, excusedBy: 1,
          detail: 'notified 2 times in epoch 0: runs 1 and 2; tolerated: run 1 ended killed after notifying it and before storing its row (the notify-then-record window)',
        }],
      });
      // The killed run alone: A was handled (notified), so eligible; B was not.
      expect(check(events.slice(0, 6))).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 1, eligibleCount: 1 }), anomalies: [] });
    });

    it('makes a history with a refused run unknown', () => {
      const events = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), runStarted(T + 24 * H, 2), runFinished(T + 24 * H + 1, 2, 'refused')];
      expect(check(events)).to.deep.equal({
        verdict: 'unknown',
        counts: counts({ notifiedCount: 1, eligibleCount: 1 }),
        anomalies: [{ kind: 'refused-run', item: '', run: 2, detail: 'run 2 was refused: the worker did not run, so the history cannot show what it would have notified' }],
      });
    });

    it('still fails when a refused run comes with a lost item (fail beats unknown)', () => {
      const events = [...feedAB(), ...run(1, T, [A, B], [A]), runStarted(T + 24 * H, 2), runFinished(T + 24 * H + 1, 2, 'refused')];
      const result = check(events);
      expect(result.verdict).to.equal('fail');
      expect(result.anomalies.map((a) => a.kind)).to.deep.equal(['refused-run', 'lost']);
    });
  });

  describe('out-of-order', () => {
    it('reports a post older than the post before it in the same run', () => {
      expect(check([...feedABC(), ...run(1, T, [A, B, C], [C, A, B])])).to.deep.equal({
        verdict: 'fail',
        counts: counts({ outOfOrderCount: 1, notifiedCount: 3, eligibleCount: 3 }),
        anomalies: [{
          kind: 'out-of-order', item: A, run: 1,
          detail: 'posted in run 1 after https://feed.example/c although published earlier (2024-06-01T09:00:00.000Z < 2024-06-01T11:00:00.000Z); a run must post oldest first',
        }],
      });
    });

    it('does not compare posts across runs', () => {
      const events = [
        published(T, B, T - 2 * H), ...run(1, T, [B], [B]),
        published(T + H, A, T - 3 * H), ...run(2, T + 2 * H, [A, B], [A]),
      ];
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 2, eligibleCount: 2 }), anomalies: [] });
    });

    it('accepts posts with equal publication times in any order', () => {
      const events = [published(T, A, T - H), published(T, B, T - H), ...run(1, T, [A, B], [B, A])];
      expect(check(events).verdict).to.equal('pass');
    });
  });

  describe('unexpected', () => {
    const unexpectedOnly = (events: HistoryEvent[], item: string, reason: string, eligibleCount = 0): void => {
      expect(check(events)).to.deep.equal({
        verdict: 'fail',
        counts: counts({ unexpectedCount: 1, notifiedCount: 1, eligibleCount }),
        anomalies: [{ kind: 'unexpected', item, run: 1, epoch: 0, detail: `notified in run 1 but never eligible in epoch 0: ${reason}` }],
      });
    };

    it('for a date that did not parse (publishedAt 0)', () => {
      unexpectedOnly([published(T, D, 0), ...run(1, T, [D], [D])], D, 'its date did not parse (publishedAt 0)');
    });

    it('for an entry with no link', () => {
      unexpectedOnly([published(T, '', T - H, 'NO LINK'), ...run(1, T, [''], [''])], '', 'it has no link (empty item key)');
    });

    it('for an item outside the window', () => {
      unexpectedOnly([published(T, A, T - 72 * H), ...run(1, T, [A], [A])], A,
        'it was outside the 48 h window when run 1 fetched it (published 2024-05-29T12:00:00.000Z, 72 h old)');
    });

    it('for an item never served', () => {
      unexpectedOnly([published(T, A, T - H), ...run(1, T, [], [A])], A, 'no run fetched it (in a 2xx response) in epoch 0');
    });

    it('for an item served only in a non-2xx response', () => {
      const events = [published(T, A, T - H), runStarted(T, 1), fetched(T + 1, 1, [A], 500), notified(T + 2, 1, A), runFinished(T + 3, 1, 'retry')];
      unexpectedOnly(events, A, 'no run fetched it (in a 2xx response) in epoch 0');
    });

    it('for an item never published', () => {
      unexpectedOnly([...run(1, T, [D], [D])], D, 'it was never published in the feed');
    });
  });

  describe('os-shed and recovered (informational)', () => {
    it('reports a post the OS shed as os-shed, not lost', () => {
      const events = [...feedAB(), runStarted(T, 1), fetched(T + 1, 1, [A, B]), notified(T + 2, 1, A), stored(T + 3, 1, A), shed(T + 4, B, 1), stored(T + 5, 1, B), runFinished(T + 6, 1)];
      expect(check(events)).to.deep.equal({
        verdict: 'pass',
        counts: counts({ shedCount: 1, notifiedCount: 1, eligibleCount: 2 }),
        anomalies: [{
          kind: 'os-shed', item: B, run: 1, epoch: 0,
          detail: 'the OS refused to post it 1 time (first in run 1) in epoch 0: notification cap or rate limit, not an app bug; not counted as lost',
        }],
      });
    });

    it('counts a shed post as handled, even in a killed run', () => {
      const events = [...feedAB(), runStarted(T, 1), fetched(T + 1, 1, [A, B]), shed(T + 2, A, 1), runFinished(T + 3, 1, 'killed')];
      expect(check(events).counts).to.deep.equal(counts({ shedCount: 1, eligibleCount: 1 }));
    });

    /** Run 1 notifies and records A, records B and C without a notification, and the OS logged `sheds` unnamed refusals. */
    const capped = (sheds: number): HistoryEvent[] => [
      ...feedABC(),
      runStarted(T, 1), fetched(T + 1, 1, [A, B, C]), notified(T + 2, 1, A), stored(T + 3, 1, A), stored(T + 4, 1, B), stored(T + 5, 1, C),
      ...Array.from({ length: sheds }, (_, i) => shed(T + 6 + i, '', 1)),
      runFinished(T + 9, 1),
    ];

    it('lets unnamed sheds (the 50-notification cap) explain items stored without a notification', () => {
      const detail = 'never notified in epoch 0, but the OS refused 2 posts in run 1 without naming the item (50-notification cap or rate limit): counted as os-shed, not lost';
      expect(check(capped(2))).to.deep.equal({
        verdict: 'pass',
        counts: counts({ shedCount: 2, notifiedCount: 1, eligibleCount: 3 }),
        anomalies: [
          { kind: 'os-shed', item: B, run: 1, epoch: 0, detail },
          { kind: 'os-shed', item: C, run: 1, epoch: 0, detail },
        ],
      });
    });

    it('reports lost when there are fewer unnamed sheds than items left unnotified', () => {
      const tail = '; the OS refused only 1 post in run 1 without naming the item, too few for the 2 items that run left unnotified: at least 1 were lost';
      expect(check(capped(1))).to.deep.equal({
        verdict: 'fail',
        counts: counts({ lostCount: 2, notifiedCount: 1, eligibleCount: 3 }),
        anomalies: [
          { kind: 'lost', item: B, run: 1, epoch: 0, detail: `never notified in epoch 0, although eligible from run 1 on ("B", published 2024-06-01T10:00:00.000Z)${tail}` },
          { kind: 'lost', item: C, run: 1, epoch: 0, detail: `never notified in epoch 0, although eligible from run 1 on ("C", published 2024-06-01T11:00:00.000Z)${tail}` },
        ],
      });
    });

    it('reports unnamed sheds of a run that notified everything it handled as informational', () => {
      const events = [...feedAB(), runStarted(T, 1), fetched(T + 1, 1, [A, B]), notified(T + 2, 1, A), notified(T + 3, 1, B), shed(T + 4, '', 1), runFinished(T + 5, 1)];
      expect(check(events)).to.deep.equal({
        verdict: 'pass',
        counts: counts({ shedCount: 1, notifiedCount: 2, eligibleCount: 2 }),
        anomalies: [{ kind: 'os-shed', item: '', run: 1, detail: 'the OS refused 1 post in run 1 without naming the item (50-notification cap or rate limit); every item that run handled was notified' }],
      });
    });

    it('reports an item notified in a later run than it was first eligible in as recovered', () => {
      const events = [...feedAB(), ...run(1, T, [A, B], [A], 'retry'), ...run(2, T + H, [A, B], [B])];
      expect(check(events)).to.deep.equal({
        verdict: 'pass',
        counts: counts({ recoveredCount: 1, notifiedCount: 2, eligibleCount: 2 }),
        anomalies: [{ kind: 'recovered', item: B, run: 2, runs: [1, 2], epoch: 0, detail: 'eligible from run 1 but first notified in run 2 (epoch 0)' }],
      });
    });
  });

  describe('pathological', () => {
    /** Out of order, the same item twice in one run, an item without link, a lost item, a refused run. */
    const mess = (): HistoryEvent[] => [
      ...feedABC(), published(T - 10 * H, '', T - H, 'NO LINK'),
      runStarted(T, 1), fetched(T + 1, 1, [A, B, C, '']),
      notified(T + 2, 1, C), notified(T + 3, 1, A), notified(T + 4, 1, A), notified(T + 5, 1, ''),
      runFinished(T + 6, 1),
      runStarted(T + 24 * H, 2), runFinished(T + 24 * H + 1, 2, 'refused'),
    ];

    it('reports every anomaly, grouped by kind, with counts', () => {
      expect(check(mess())).to.deep.equal({
        verdict: 'fail',
        counts: counts({ lostCount: 1, duplicatedCount: 1, unexpectedCount: 1, outOfOrderCount: 1, notifiedCount: 4, eligibleCount: 3 }),
        anomalies: [
          { kind: 'refused-run', item: '', run: 2, detail: 'run 2 was refused: the worker did not run, so the history cannot show what it would have notified' },
          { kind: 'lost', item: B, run: 1, epoch: 0, detail: 'never notified in epoch 0, although eligible from run 1 on ("B", published 2024-06-01T10:00:00.000Z)' },
          { kind: 'duplicated', item: A, epoch: 0, runs: [1], detail: 'notified 2 times in epoch 0: run 1 (2 times); run 1 notified it twice: a run must notify an item once' },
          { kind: 'unexpected', item: '', run: 1, epoch: 0, detail: 'notified in run 1 but never eligible in epoch 0: it has no link (empty item key)' },
          {
            kind: 'out-of-order', item: A, run: 1,
            detail: 'posted in run 1 after https://feed.example/c although published earlier (2024-06-01T09:00:00.000Z < 2024-06-01T11:00:00.000Z); a run must post oldest first',
          },
        ],
      });
    });

    it('gives the same result incrementally as in one call', () => {
      const checker = createChecker(opts());
      for (const e of mess()) checker.add(e);
      expect(checker.finish()).to.deep.equal(check(mess()));
    });

    it('carries the evidence of the events into the anomaly', () => {
      const events = [published(T, A, T - H), ...run(1, T, [A], [A]), { ...notified(T + H, 2, A), evidence: ['06-01 13:00:00.000 I notification_enqueue: [10190,...]'] }];
      expect(check(events).anomalies).to.deep.equal([{
        kind: 'unfinished-run', item: '', run: 2,
        detail: 'run 2 has no run-finished: the history ends inside it (cut off?), so what it would have notified is not in the history and its items are undecided',
      }, {
        kind: 'duplicated', item: A, epoch: 0, runs: [1, 2],
        detail: 'notified 2 times in epoch 0: runs 1 and 2; run 1, which notified it before, ended success, not killed: the app should have found its row in run 2',
        evidence: ['06-01 13:00:00.000 I notification_enqueue: [10190,...]'],
      }]);
    });

    it('accepts events of a run recorded before its run-started', () => {
      const events = [published(T, A, T - H), fetched(T, 1, [A]), runStarted(T, 1), notified(T + 1, 1, A), runFinished(T + 2, 1)];
      expect(check(events)).to.deep.equal({ verdict: 'pass', counts: counts({ notifiedCount: 1, eligibleCount: 1 }), anomalies: [] });
    });
  });

  describe('lines the parsers did not understand', () => {
    const unparsed = (t: number, run: number): HistoryEvent => ({ type: 'unparsed', t, tag: 'notification_enqueue', line: 'I notification_enqueue: [10190,4321,com.example,??]', run });

    it('makes an item that looks lost undecided: the line may have been its notification', () => {
      const events = [...feedAB(), runStarted(T, 1), fetched(T + 1, 1, [A, B]), notified(T + 2, 1, A), unparsed(T + 3, 1), runFinished(T + 4, 1)];
      expect(check(events)).to.deep.equal({
        verdict: 'unknown',
        counts: counts({ lostCount: 1, notifiedCount: 1, eligibleCount: 2 }),
        anomalies: [
          {
            kind: 'unparsed-line', item: '', run: 1,
            detail: "a notification_enqueue line of run 1 did not parse: the notification it records is missing from the history, so the verdict cannot rest on it (a new image's format?)",
            evidence: ['I notification_enqueue: [10190,4321,com.example,??]'],
          },
          {
            kind: 'lost', item: B, run: 1, epoch: 0, undecided: true,
            detail: 'never notified in epoch 0, although eligible from run 1 on ("B", published 2024-06-01T10:00:00.000Z); but 1 notification_enqueue line(s) did not parse, so it may have been notified: undecided',
          },
        ],
      });
    });

    it('still fails on what the line cannot explain (a duplicate)', () => {
      const events = [published(T, A, T - 3 * H), ...run(1, T, [A], [A]), ...run(2, T + H, [A], [A]), unparsed(T + H + 10, 2)];
      expect(check(events).verdict).to.equal('fail');
    });
  });

  describe('when the checker cannot decide', () => {
    it('is unknown, with the error, for runs started out of order', () => {
      expect(check([runStarted(T, 2), runStarted(T + 1, 1)])).to.deep.equal({
        verdict: 'unknown', counts: ZERO, anomalies: [],
        error: 'history is inconsistent at event #2: run 1 started after run 2; runs must be numbered in start order, each started once',
      });
    });

    it('is unknown for invalid options', () => {
      expect(checkHistory([], { windowMs: 0, allowedDuplicates: 0 })).to.deep.equal({
        verdict: 'unknown', counts: ZERO, anomalies: [], error: 'windowMs must be a positive number of ms, got 0',
      });
      expect(checkHistory([], { windowMs: WINDOW, allowedDuplicates: -1 }).error).to.equal('allowedDuplicates must be a whole number >= 0, got -1');
    });

    it('is unknown when reading the events throws', () => {
      function* broken(): Generator<HistoryEvent> {
        yield published(T, A, T - H);
        throw new Error('disk gone');
      }
      expect(checkHistory(broken(), opts())).to.deep.equal({
        verdict: 'unknown', counts: ZERO, anomalies: [], error: 'checker failed reading the events: disk gone',
      });
    });

    it('is unknown when an event is added after finish()', () => {
      const checker = createChecker(opts());
      checker.finish();
      checker.add(published(T, A, T - H));
      expect(checker.finish()).to.deep.equal({ verdict: 'unknown', counts: ZERO, anomalies: [], error: 'an event was added after finish()' });
    });
  });
});
