import { expect } from 'chai';
import { malformedEntries } from '../../../src/scenarios/malformed-entries.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const GOOD = ['good-1', 'good-2'].map(link);

describe('scenario malformed-entries (fake harness)', () => {
  it('serves a bad date and an empty link between two good items, and runs twice', async () => {
    const { h } = await play(malformedEntries);
    expect(h.steps.filter((s) => !s.startsWith('step:'))).to.deep.equal(['serveFeed good-1@-120m bad-date@bad-date empty-link@-30m good-2@-60m', 'forceRun', 'forceRun']);
    const bad = h.events.flatMap((e) => (e.type === 'published' ? [[e.label, e.item, e.publishedAt === 0]] : []));
    expect(bad.filter(([, , zero]) => zero)).to.deep.equal([['bad-date', link('bad-date'), true]]);
    expect(bad.find(([label]) => label === 'empty-link')?.[1]).to.equal('');
  });

  it('passes an app that notifies the good items only; fails one that notifies the bad date (as now) or the empty link', async () => {
    expect((await play(malformedEntries, (h) => (h.onRun = (n) => (n === 1 ? { posted: GOOD, stored: GOOD } : {})))).check.verdict).to.equal('pass');
    const asNow = await play(malformedEntries, (h) => (h.onRun = (n) => (n === 1 ? { posted: [...GOOD, link('bad-date')], stored: GOOD } : { posted: [link('bad-date')] })));
    expect(failing(asNow.check)).to.deep.equal(['duplicated', 'unexpected']);
    const emptyLink = await play(malformedEntries, (h) => (h.onRun = (n) => (n === 1 ? { posted: [...GOOD, ''], stored: GOOD } : {})));
    expect(failing(emptyLink.check)).to.deep.equal(['unexpected']);
  });
});
