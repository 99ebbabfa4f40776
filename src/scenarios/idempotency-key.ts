import { DEFAULT_IDEMPOTENCY_HEADER, bodyLink } from '../checker/properties/index.js';
import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

export const idempotencyKey: Scenario = {
  name: 'idempotency-key',
  summary:
    'The backend processes a receipt and drops the connection; the retry, after process death, reuses the same Idempotency-Key: one effect per operation.',
  seed: {
    file: 'docs/sources/001_3eaf84dd3362095c.txt',
    quote: 'Generate operationId once and persist it with the pending operation. Reuse it on retry. […] A new UUID inside every doWork() defeats idempotency.',
  },
  catches: ['new-key-per-attempt'],
  needs: {},
  properties: ['idempotency'],
  async run(h) {
    const served = await h.serveFeed([1, 2, 3].map((n) => ({ label: `receipt-${n}`, title: `Receipt ${n}`, ageMs: n * HOUR })));
    // The first receipt is processed and its answer lost; the backend then fails (503) for the
    // rest of the run, so the operation is still pending when the process dies.
    h.fault('receipts', { sequence: ['drop-after-processing', ...Array<number>(20).fill(503)] });
    h.step('the backend stores the first receipt, drops the connection, then answers 503');
    const first = await h.forceRun();
    h.clearFaults();
    h.note(`run ${first.run} ended ${first.outcome}`);
    h.step('process death: force-stop and restart (the key must be persisted, not in memory)');
    await h.restartApp();
    h.step('retry');
    const second = await h.forceRun();
    h.note(`run ${second.run} ended ${second.outcome}`);
    // Evidence for the report; the idempotency property check decides from the history.
    const header = (h.config.backend.idempotencyHeader || DEFAULT_IDEMPOTENCY_HEADER).toLowerCase();
    const posts = h.journal('receipts').filter((j) => j.method === 'POST');
    for (const s of served) {
      const mine = posts.filter((p) => bodyLink(p.body) === s.item);
      const keys = [...new Set(mine.map((p) => p.headers[header] ?? ''))];
      h.note(`${s.item}: ${mine.length} POST(s), keys [${keys.join(', ')}], ${h.effects().filter((e) => e.link === s.item).length} effect(s)`);
    }
  },
};
