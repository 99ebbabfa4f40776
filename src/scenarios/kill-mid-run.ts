import type { ForceRunOptions } from '../harness/harness.js';
import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

interface KillPoint {
  readonly name: string;
  readonly killAt: NonNullable<ForceRunOptions['killAt']>;
}

/**
 * Kill points, each in a fresh round with its own items. The receipt POST sits between
 * notify and record (docs/reference-app.md), so holding receipt N and killing there opens the
 * notify-then-record window on item N; holding the feed kills before anything was handled. An
 * app that records its rows only after the notify loop repeats every item notified before the
 * kill: from the 2nd kill point on, more than one item after one kill.
 */
export const KILL_POINTS: readonly KillPoint[] = [
  { name: 'during the feed fetch (run-as kill)', killAt: { route: 'feed', nth: 1, kill: 'signal' } },
  { name: 'between the 1st notification and its row (run-as kill)', killAt: { route: 'receipts', nth: 1, kill: 'signal' } },
  { name: 'between the 2nd notification and its row (run-as kill)', killAt: { route: 'receipts', nth: 2, kill: 'signal' } },
  { name: 'between the 3rd notification and its row (force-stop, app restarted)', killAt: { route: 'receipts', nth: 3, kill: 'force-stop' } },
];

function shortName(item: string): string {
  return item.slice(item.lastIndexOf('/') + 1);
}

export const killMidRun: Scenario = {
  name: 'kill-mid-run',
  summary: 'Kill the process part-way through a run, run again: nothing lost, at most one item duplicated.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote:
      'Notify-then-record leaves a narrow duplicate window. The record is written immediately after the notification is posted; a kill between the two re-notifies that one item next run. Recording first trades that for silently losing an item instead.',
  },
  catches: ['record-before-notify', 'record-after-loop'],
  needs: {},
  notApplicable: (config) =>
    config.database === undefined
      ? 'the config has no "database": a repeat after a kill is excused only when the killed run had not recorded the item yet, and nothing shows what the app recorded'
      : undefined,
  allowedDuplicates: 1,
  async run(h) {
    for (const [i, point] of KILL_POINTS.entries()) {
      if (i > 0) await h.openGuard();
      await h.serveFeed([1, 2, 3, 4, 5].map((n) => ({ label: `k${i + 1}-item-${n}`, title: `Kill point ${i + 1}, item ${n}`, ageMs: (6 - n) * HOUR })));
      h.step(`kill ${point.name}`);
      const killed = await h.forceRun({ killAt: point.killAt });
      // The notifications the killed run posted are cleared, as a user would (force-stop removes
      // them; the process itself is already gone), and the app relaunched: a
      // repeat is then a new post. An update of a notification still showing is a repeat as much,
      // but NotificationManagerService rate-limits updates to 5 per second per package and
      // sheds the rest, logging one line in five seconds (A14 NotificationManagerService,
      // LOS21-pre-QPR2/android_frameworks_base @1add8e2d), so a repeat right
      // after the kill could go unseen.
      if (point.killAt.kill !== 'force-stop') await h.restartApp();
      else await h.startApp();
      h.step('run again after the kill');
      const next = await h.forceRun();
      h.note(
        `kill point "${point.name}": killed run ${killed.run} posted [${killed.posted.map(shortName).join(', ')}] and stored [${killed.stored.map(shortName).join(', ')}]; ` +
          `run ${next.run} posted [${next.posted.map(shortName).join(', ')}]`,
      );
    }
  },
};
