/**
 * `idempotency` (seed 001: "Generate operationId once and persist it with the pending
 * operation. Reuse it on retry."): from the backend's `request` and `effect` events, every
 * backend request carries an idempotency key, the backend stored one effect per operation, and
 * the request whose answer was lost (dropped after processing) was sent again.
 */
import type { HistoryEvent, RequestEvent } from '../../history/events.js';
import { joinWords } from '../describe.js';
import type { Anomaly } from '../types.js';
import type { PropertyChecker, PropertyDefinition, PropertyOptions } from './property.js';

const MAX_EVIDENCE = 8;
export const DEFAULT_IDEMPOTENCY_HEADER = 'Idempotency-Key';

interface Operation {
  readonly item: string;
  requests: number;
  /** Keys sent ("" for a request without one), in order of first use. */
  readonly keys: string[];
  effects: number;
  readonly effectKeys: (string | null)[];
  missingKey: boolean;
  readonly evidence: string[];
}

/** The item a backend request is about: the `link` of its JSON body. */
export function bodyLink(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    const parsed = JSON.parse(body) as { link?: unknown } | null;
    return typeof parsed?.link === 'string' ? parsed.link : undefined;
  } catch {
    return undefined;
  }
}

class IdempotencyChecker implements PropertyChecker {
  private readonly header: string;
  private readonly headerName: string;
  private readonly operations = new Map<string, Operation>();
  /** The item of the first request the backend processed and dropped the answer of. */
  private dropped: string | undefined;
  private backendRequests = 0;

  constructor(options: PropertyOptions) {
    this.header = options.idempotencyHeader ?? DEFAULT_IDEMPOTENCY_HEADER;
    this.headerName = this.header.toLowerCase();
  }

  private operation(item: string): Operation {
    let op = this.operations.get(item);
    if (!op) {
      op = { item, requests: 0, keys: [], effects: 0, effectKeys: [], missingKey: false, evidence: [] };
      this.operations.set(item, op);
    }
    return op;
  }

  add(event: HistoryEvent): void {
    if (event.type === 'request') this.request(event);
    else if (event.type === 'effect') {
      const op = this.operation(event.item);
      op.effects += 1;
      op.effectKeys.push(event.key);
    }
  }

  private request(event: RequestEvent): void {
    if (event.route !== 'receipts' || event.method !== 'POST') return;
    this.backendRequests += 1;
    const item = bodyLink(event.body) ?? '';
    const op = this.operation(item);
    op.requests += 1;
    const key = event.headers[this.headerName] ?? '';
    if (key === '') op.missingKey = true;
    if (!op.keys.includes(key)) op.keys.push(key);
    if (op.evidence.length < MAX_EVIDENCE) {
      op.evidence.push(`${event.method} ${event.path} ${this.header}: ${key === '' ? '(none)' : key} → ${event.dropped === true ? 'dropped' : event.status}`);
    }
    if (event.dropped === true) this.dropped ??= item;
  }

  finish(): Anomaly[] {
    const anomalies: Anomaly[] = [];
    for (const op of this.operations.values()) {
      if (op.missingKey) {
        anomalies.push({ kind: 'missing-idempotency-key', item: op.item, detail: `a backend request for this item carried no ${this.header} header`, evidence: [...op.evidence] });
      }
      if (op.effects > 1) {
        const keys = op.keys.map((k) => (k === '' ? '(none)' : k));
        anomalies.push({
          kind: 'duplicate-effect',
          item: op.item,
          detail: `the backend recorded ${op.effects} effects for one operation: its ${op.requests} request(s) used ${keys.length} different keys (${joinWords(keys)})`,
          evidence: [...op.evidence],
        });
      }
    }
    if (this.dropped === undefined) {
      anomalies.push({
        kind: 'no-receipt',
        item: '',
        detail: `the backend dropped no answer after processing (${this.backendRequests} backend request(s)): the retry of a lost answer could not be exercised`,
      });
    } else {
      const op = this.operations.get(this.dropped);
      const sent = op?.requests ?? 0;
      if (sent < 2) {
        anomalies.push({
          kind: 'receipt-not-retried',
          item: this.dropped,
          detail: `the request whose answer was lost was sent ${sent === 1 ? 'once' : `${sent} times`}: it must be sent again until acknowledged`,
          ...(op ? { evidence: [...op.evidence] } : {}),
        });
      }
    }
    return anomalies;
  }
}

export const idempotency: PropertyDefinition = {
  name: 'idempotency',
  verifies: 'every backend request carries an idempotency key; one backend effect per operation; a request whose answer was lost is sent again',
  create: (options) => new IdempotencyChecker(options),
};
