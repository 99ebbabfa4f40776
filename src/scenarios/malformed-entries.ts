import type { Scenario } from '../harness/types.js';
import { HOUR, MINUTE } from './time.js';

export const malformedEntries: Scenario = {
  name: 'malformed-entries',
  summary: 'An entry with an unparseable date and entries with no link: none notifies, the rest do.',
  seed: {
    file: 'docs/sources/000_83062cdfb17c0f84.txt',
    quote: 'Feed the parser an entry with a malformed date and an entry with no link, and confirm neither notifies.',
  },
  catches: ['date-defaults-to-now', 'empty-link-kept'],
  needs: {},
  async run(h) {
    await h.serveFeed([
      { label: 'good-1', title: 'Well-formed 1', ageMs: 2 * HOUR },
      { label: 'bad-date', title: 'Unparseable date', rawDate: 'not a date at all' },
      { label: 'empty-link', title: 'Empty link', ageMs: 30 * MINUTE, link: 'empty' },
      { label: 'good-2', title: 'Well-formed 2', ageMs: 1 * HOUR },
    ]);
    h.step('forced run over a feed with a bad date and an empty link');
    await h.forceRun();
    h.step('second forced run: a bad date must not notify on every run');
    await h.forceRun();
  },
};
