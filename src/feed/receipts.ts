/**
 * The fixture server's receipts backend (`POST /receipts`): each valid request stores one
 * receipt (its side effect), idempotent on the idempotency key: the server stores the first
 * result for a key and replays it for every later request with that key. A request without a
 * key stores a new receipt every time.
 */

/** One side effect of the backend: a stored receipt. */
export interface ReceiptEffect {
  readonly receipt: number;
  /** `null` when the request carried no idempotency key. */
  readonly key: string | null;
  readonly link: string;
  readonly title: string;
  /** Server clock when stored. */
  readonly t: number;
  /** Journal seq of the request that stored it. */
  readonly seq: number;
}

/** The answer to one receipts request, and what it did. */
export interface ReceiptAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Set when a receipt was stored or replayed. */
  readonly receipt?: { readonly key: string | null; readonly receipt: number; readonly replayed: boolean };
}

function jsonType(): Record<string, string> {
  return { 'Content-Type': 'application/json' };
}

export class ReceiptStore {
  private readonly stored: ReceiptEffect[] = [];
  /** Idempotency key -> the receipt first answered for it. */
  private readonly answers = new Map<string, number>();

  /**
   * @param idempotencyHeader the header carrying the key, lower-cased
   * @param clock server clock (epoch ms) for the effect times
   */
  constructor(
    private readonly idempotencyHeader: string,
    private readonly clock: () => number,
  ) {}

  /** Every stored receipt, in order. */
  effects(): ReceiptEffect[] {
    return [...this.stored];
  }

  /** Handles one request: `headers` lower-cased, `body` the raw bytes, `seq` its journal seq. */
  receive(headers: Readonly<Record<string, string>>, body: Buffer, seq: number): ReceiptAnswer {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return { status: 400, headers: jsonType(), body: JSON.stringify({ error: 'body is not JSON; send {"link": "...", "title": "..."}' }) };
    }
    const record = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    const link = record?.['link'];
    const title = record?.['title'] ?? '';
    if (typeof link !== 'string' || typeof title !== 'string') {
      return { status: 400, headers: jsonType(), body: JSON.stringify({ error: 'body must be {"link": string, "title": string}' }) };
    }
    const rawKey = (headers[this.idempotencyHeader] ?? '').trim();
    const key = rawKey === '' ? null : rawKey;
    const first = key === null ? undefined : this.answers.get(key);
    if (first !== undefined) {
      return { status: 201, headers: jsonType(), body: JSON.stringify({ receipt: first, replayed: true }), receipt: { key, receipt: first, replayed: true } };
    }
    const receipt = this.stored.length + 1;
    this.stored.push({ receipt, key, link, title, t: this.clock(), seq });
    if (key !== null) this.answers.set(key, receipt);
    return { status: 201, headers: jsonType(), body: JSON.stringify({ receipt, replayed: false }), receipt: { key, receipt, replayed: false } };
  }
}
