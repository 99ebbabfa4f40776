/**
 * Fault plans of the fixture server: what each request of a route gets instead of (or on top
 * of) a normal answer. A plan is validated when set and consumed one request at a time; the
 * server applies what `take` returns.
 */
import { DedupVerifyError, ErrorCode } from '../errors.js';

/**
 * A fault plan for one route (replaces the previous plan of that route):
 * - `statuses`: answered in order (an entry below 300 means "handle normally"), then normal;
 *   `retryAfterSec` adds a `Retry-After` header to the fault answers;
 * - `status` (300..599, e.g. 401, 408, 429, 503): every request until cleared, or `times`
 *   requests; `retryAfterSec` adds a `Retry-After` header;
 * - `delayMs`: every request is handled normally after this delay;
 * - `hold`: every request (after the first `passFirst`, handled normally) waits until
 *   `release()`, which also ends the hold; a held request whose client went away is still
 *   processed on release (the server had the whole request), and journaled `clientClosed`;
 * - `dropAfterProcessing`: the request is handled (a receipt's effect is stored), then the
 *   socket is destroyed before any response byte; every request, or `times` requests.
 */
export type FaultPlan =
  | { readonly statuses: readonly number[]; readonly retryAfterSec?: number }
  | { readonly status: number; readonly retryAfterSec?: number; readonly times?: number }
  | { readonly delayMs: number }
  | { readonly hold: true; readonly passFirst?: number }
  | { readonly sequence: readonly FaultStep[] }
  | { readonly dropAfterProcessing: true; readonly times?: number };

/**
 * One request's fate in a `sequence` plan: handled normally, answered with a status, handled
 * then dropped before any response byte, or held until `release()`. After the last step the
 * route is normal again.
 */
export type FaultStep = 'pass' | 'drop-after-processing' | 'hold' | number;

/** The fault one request gets, after sequences and counts are consumed. */
export type AppliedFault =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterSec: number | undefined }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'hold' }
  | { readonly kind: 'drop' };

/** Validates a plan; returns a message naming what is wrong, or null. */
export function describePlanProblem(plan: FaultPlan): string | null {
  const isStatus = (s: number): boolean => Number.isInteger(s) && s >= 100 && s <= 599;
  const isCount = (n: number | undefined): boolean => n === undefined || (Number.isInteger(n) && n > 0);
  const isRetryAfter = (n: number | undefined): boolean => n === undefined || (Number.isInteger(n) && n >= 0);
  if ('statuses' in plan) {
    if (plan.statuses.length === 0 || !plan.statuses.every(isStatus)) return 'statuses must be a non-empty list of HTTP statuses (100..599)';
    return isRetryAfter(plan.retryAfterSec) ? null : 'retryAfterSec must be a whole number >= 0';
  }
  if ('status' in plan) {
    if (!isStatus(plan.status) || plan.status < 300) return 'status must be an HTTP status from 300 to 599';
    if (!isRetryAfter(plan.retryAfterSec)) return 'retryAfterSec must be a whole number >= 0';
    return isCount(plan.times) ? null : 'times must be a whole number > 0';
  }
  if ('delayMs' in plan) return Number.isFinite(plan.delayMs) && plan.delayMs >= 0 ? null : 'delayMs must be a number >= 0';
  if ('sequence' in plan) {
    const ok = plan.sequence.length > 0 && plan.sequence.every((step) => step === 'pass' || step === 'drop-after-processing' || step === 'hold' || (typeof step === 'number' && isStatus(step) && step >= 300));
    return ok ? null : 'sequence must be a non-empty list of "pass", "drop-after-processing", "hold" or HTTP statuses 300..599';
  }
  if ('hold' in plan) return plan.passFirst === undefined || (Number.isInteger(plan.passFirst) && plan.passFirst >= 0) ? null : 'passFirst must be a whole number >= 0';
  return isCount(plan.times) ? null : 'times must be a whole number > 0';
}

/** The journal's label of an applied fault: `status:503`, `delay:200`, `hold`, `drop-after-processing`. */
export function faultLabel(fault: AppliedFault): string {
  switch (fault.kind) {
    case 'status':
      return `status:${fault.status}`;
    case 'delay':
      return `delay:${fault.ms}`;
    case 'hold':
      return 'hold';
    case 'drop':
      return 'drop-after-processing';
    default: {
      const unreachable: never = fault;
      return unreachable;
    }
  }
}

/** The body of a status fault's answer. */
export function faultStatusText(status: number): string {
  return `fixture fault: HTTP ${status}\n`;
}

/** The plan of each route and how many requests it has met. Routes are checked by the caller. */
export class FaultPlans {
  private readonly plans = new Map<string, { plan: FaultPlan; used: number }>();

  /** Sets the plan of `route`; throws DV_FIXTURE_SERVER naming what is wrong with it. */
  set(route: string, plan: FaultPlan): void {
    const problem = describePlanProblem(plan);
    if (problem !== null) {
      throw new DedupVerifyError(ErrorCode.FixtureServer, `Invalid fault plan for ${route} (${JSON.stringify(plan)}): ${problem}.`);
    }
    this.plans.set(route, { plan, used: 0 });
  }

  /** Clears the plan of `route`, or every plan. */
  clear(route?: string): void {
    if (route === undefined) this.plans.clear();
    else this.plans.delete(route);
  }

  /** Ends the hold plans (of `route`, or all). */
  endHolds(route?: string): void {
    for (const [r, f] of this.plans) {
      if ('hold' in f.plan && (route === undefined || r === route)) this.plans.delete(r);
    }
  }

  /** Takes the fault for this request, or undefined; consumes sequences and counts. */
  take(route: string): AppliedFault | undefined {
    const f = this.plans.get(route);
    if (f === undefined) return undefined;
    const plan = f.plan;
    f.used += 1;
    if ('statuses' in plan) {
      const status = plan.statuses[f.used - 1];
      if (f.used >= plan.statuses.length) this.plans.delete(route);
      return status === undefined || status < 300 ? undefined : { kind: 'status', status, retryAfterSec: plan.retryAfterSec };
    }
    if ('status' in plan) {
      if (plan.times !== undefined && f.used >= plan.times) this.plans.delete(route);
      return { kind: 'status', status: plan.status, retryAfterSec: plan.retryAfterSec };
    }
    if ('dropAfterProcessing' in plan) {
      if (plan.times !== undefined && f.used >= plan.times) this.plans.delete(route);
      return { kind: 'drop' };
    }
    if ('delayMs' in plan) return { kind: 'delay', ms: plan.delayMs };
    if ('sequence' in plan) {
      const step = plan.sequence[f.used - 1];
      if (f.used >= plan.sequence.length) this.plans.delete(route);
      if (step === undefined || step === 'pass') return undefined;
      if (step === 'hold') return { kind: 'hold' };
      if (step === 'drop-after-processing') return { kind: 'drop' };
      return { kind: 'status', status: step, retryAfterSec: undefined };
    }
    return f.used > (plan.passFirst ?? 0) ? { kind: 'hold' } : undefined;
  }
}
