/**
 * The checker over histories in the shapes the flag and watermark stores record them
 * (src/harness/seams/dedup-store.ts, watermark-store.ts), Jepsen-style: a `stored` is a flag that
 * became set, or an item a mark came to cover (also one the run skipped); a `forgotten` is a
 * cleared flag, or every item a mark moved back uncovers. Items A < B < C by publication time.
 */
import { expect } from 'chai';
import { checkHistory, type CheckResult } from '../../../src/checker/index.js';
import type { HistoryEvent } from '../../../src/history/events.js';
import { A, B, C, H, T, WINDOW, fetched, forgotten, notified, published, runFinished, runStarted, stored } from './builders.js';

const check = (events: HistoryEvent[], allowedDuplicates = 0): CheckResult => checkHistory(events, { windowMs: WINDOW, allowedDuplicates });
const feed = (): HistoryEvent[] => [published(T - 10 * H, A, T - 3 * H), published(T - 10 * H, B, T - 2 * H), published(T - 10 * H, C, T - 1 * H)];
const kinds = (r: CheckResult): [string, string, boolean][] => r.anomalies.map((a) => [a.kind, a.item, a.tolerated === true]);

/** A run: the feed fetched, the posts, then what the read after it found recorded (the stores read after the run). */
function run(n: number, t: number, posts: string[], recorded: string[], outcome: 'success' | 'killed' = 'success'): HistoryEvent[] {
  return [
    runStarted(t, n),
    fetched(t + 1, n, [A, B, C]),
    ...posts.map((item, i) => notified(t + 2 + i, n, item)),
    ...recorded.map((item) => stored(t + 10, n, item)),
    runFinished(t + 11, n, outcome),
  ];
}

describe('checker: histories of a flag and of a watermark store', () => {
  it('passes a mark that came to cover each item the run posted, and a second run that adds nothing', () => {
    const r = check([...feed(), ...run(1, T, [A, B, C], [A, B, C]), ...run(2, T + H, [], [])]);
    expect([r.verdict, kinds(r)]).to.deep.equal(['pass', []]);
  });

  it('fails as lost the items a mark jumped over: covered (stored) by the run, never posted', () => {
    // The app posted the newest item first and raised its mark past the other two.
    const r = check([...feed(), ...run(1, T, [C], [A, B, C])]);
    expect([r.verdict, kinds(r)]).to.deep.equal(['fail', [['lost', A, false], ['lost', B, false]]]);
  });

  it('passes db-is-truth on a mark moved back: every item it uncovers is forgotten, re-posted once', () => {
    // Forgetting B moved the mark to 1 ms before B: B and C, published after it, are both uncovered.
    const r = check([...feed(), ...run(1, T, [A, B, C], [A, B, C]), forgotten(T + H, [B, C]), ...run(2, T + 2 * H, [B, C], [B, C])]);
    expect([r.verdict, kinds(r)]).to.deep.equal(['pass', []]);
  });

  it('fails a re-post after the app moved its own mark back (no forget: the same epoch)', () => {
    const r = check([...feed(), ...run(1, T, [A, B, C], [A, B, C]), ...run(2, T + H, [B, C], [B, C])]);
    expect([r.verdict, kinds(r)]).to.deep.equal(['fail', [['duplicated', B, false], ['duplicated', C, false]]]);
  });

  it('tolerates the one item posted before a kill that came before its flag was set or the mark raised', () => {
    const r = check([...feed(), ...run(1, T, [A, B], [A], 'killed'), ...run(2, T + H, [B, C], [B, C])], 1);
    expect([r.verdict, kinds(r)]).to.deep.equal(['pass', [['duplicated', B, true]]]);
  });

  it('fails a repeat after a kill that came after the record (the flag set, the mark raised)', () => {
    const r = check([...feed(), ...run(1, T, [A, B], [A, B], 'killed'), ...run(2, T + H, [B, C], [C])], 1);
    expect([r.verdict, kinds(r)]).to.deep.equal(['fail', [['duplicated', B, false]]]);
  });

  it('fails as lost an item recorded before its post when the kill came in between', () => {
    // record-before-notify: the flag (or the mark) covers B, whose post never came.
    const r = check([...feed(), ...run(1, T, [A], [A, B], 'killed'), ...run(2, T + H, [C], [C])], 1);
    expect([r.verdict, kinds(r)]).to.deep.equal(['fail', [['lost', B, false]]]);
  });

  it('ignores a flag set on a row whose key is no served item (a key taken from the title); the repost still fails', () => {
    const titles = ['Headline A', 'Headline B', 'Headline C'];
    const r = check([...feed(), ...run(1, T, [A, B, C], titles), ...run(2, T + H, [A], ['Headline A, corrected'])]);
    expect([r.verdict, kinds(r)]).to.deep.equal(['fail', [['duplicated', A, false]]]);
  });
});
