import { expect } from 'chai';
import { titleEdit } from '../../../src/scenarios/title-edit.js';
import { link } from '../../support/fake-harness.js';
import { failing, play } from './play.js';

const ITEMS = ['edited', 'untouched'].map(link);

describe('scenario title-edit (fake harness)', () => {
  it('edits one title upstream between two runs, same link and date', async () => {
    const { h } = await play(titleEdit);
    const published = h.events.flatMap((e) => (e.type === 'published' ? [[e.item, e.title, e.publishedAt]] : []));
    expect(published.map(([item, title]) => [item, title])).to.deep.equal([
      [ITEMS[0], 'Original headline'], [ITEMS[1], 'Untouched headline'], [ITEMS[0], 'Original headline (corrected)'], [ITEMS[1], 'Untouched headline'],
    ]);
    expect(published[0]?.[2]).to.equal(published[2]?.[2]);
    expect(h.steps.filter((s) => s === 'forceRun')).to.have.length(2);
  });

  it('passes an app keyed on the link; fails one keyed on the title (the edited item notified again)', async () => {
    expect((await play(titleEdit, (h) => (h.onRun = (n) => (n === 1 ? { posted: ITEMS, stored: ITEMS } : {})))).check.verdict).to.equal('pass');
    const onTitle = await play(titleEdit, (h) => (h.onRun = (n) => (n === 1 ? { posted: ITEMS, stored: ITEMS } : { posted: [ITEMS[0]!] })));
    expect(failing(onTitle.check)).to.deep.equal(['duplicated']);
  });
});
