import type { Scenario } from '../scenario/types.js';
import { HOUR } from './time.js';

export const idempotencyKey: Scenario = {
  name: 'idempotency-key',
  summary:
    'The backend processes a receipt and drops the connection; the retry, after process death, reuses the same Idempotency-Key: one effect per operation.',
  seed: {
    file: 'seeds/001_3eaf84dd3362095c.txt',
    quote: 'Generate operationId once and persist it with the pending operation. Reuse it on retry. […] A new UUID inside every doWork() defeats idempotency.',
  },
  catches: ['new-key-per-attempt'],
  needs: {},
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
    await h.forceStop();
    await h.startApp();
    h.step('retry');
    const second = await h.forceRun();
    h.note(`run ${second.run} ended ${second.outcome}`);

    const header = h.config.backend.idempotencyHeader.toLowerCase();
    const posts = h.journal('receipts').filter((j) => j.method === 'POST');
    for (const s of served) {
      const mine = posts.filter((p) => bodyLink(p.body) === s.item);
      const keys = [...new Set(mine.map((p) => p.headers[header] ?? ''))];
      const effects = h.effects().filter((e) => e.link === s.item);
      h.note(`${s.item}: ${mine.length} POST(s), keys [${keys.join(', ')}], ${effects.length} effect(s)`);
      if (keys.includes('')) {
        h.finding({ kind: 'missing-idempotency-key', item: s.item, detail: `a receipt POST for this item carried no ${h.config.backend.idempotencyHeader} header` });
      }
      if (effects.length > 1) {
        h.finding({
          kind: 'duplicate-effect',
          item: s.item,
          detail: `the backend recorded ${effects.length} effects for one operation: the retry used ${keys.length} different keys (${keys.join(', ')})`,
          evidence: mine.map((p) => `POST ${p.path} ${h.config.backend.idempotencyHeader}: ${p.headers[header] ?? '(none)'} → ${p.dropped ? 'dropped' : p.status}`),
        });
      }
    }
    const dropped = posts.find((p) => p.dropped === true);
    const lostAnswer = dropped === undefined ? undefined : bodyLink(dropped.body);
    if (lostAnswer === undefined) {
      h.finding({ kind: 'no-receipt', item: '', detail: 'the app posted no receipt the backend could drop: the scenario could not exercise the retry' });
      return;
    }
    const retried = posts.filter((p) => bodyLink(p.body) === lostAnswer);
    if (retried.length < 2) {
      h.finding({
        kind: 'receipt-not-retried',
        item: lostAnswer,
        detail: `the receipt whose answer was lost was sent ${retried.length} time(s): it must be retried until acknowledged`,
      });
    }
  },
};

function bodyLink(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { link?: unknown };
    return typeof parsed.link === 'string' ? parsed.link : undefined;
  } catch {
    return undefined;
  }
}
