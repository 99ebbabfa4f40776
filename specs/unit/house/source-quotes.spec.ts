/**
 * Every scenario quotes the source document it comes from: the file is in the repository
 * (docs/sources/) and the quote is in it, word for word (line breaks, spacing and emphasis aside; an
 * elision `[…]` marks words left out), so a scenario cannot drift from the words it claims to check.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCENARIOS } from '../../../src/scenarios/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The words of a text: spacing and line breaks collapsed, Markdown emphasis (`*oldest*`) dropped. */
function words(text: string): string {
  return text.replace(/\*/g, '').replace(/\s+/g, ' ').trim();
}

describe('scenarios quote their source documents', () => {
  it('names a file under docs/sources/ that holds the quote', () => {
    expect(SCENARIOS.length).to.be.greaterThan(10);
    for (const s of SCENARIOS) {
      expect(s.seed.file, s.name).to.match(/^docs\/sources\/\d{3}_[0-9a-f]{16}\.txt$/);
      const text = words(readFileSync(`${ROOT}${s.seed.file}`, 'utf8'));
      let from = 0;
      for (const part of s.seed.quote.split('[…]').map(words).filter((p) => p !== '')) {
        const at = text.indexOf(part, from);
        expect(at, `${s.name}: "${part}" is not in ${s.seed.file} (after what comes before it)`).to.be.at.least(0);
        from = at + part.length;
      }
    }
  });
});
