/**
 * How the app gets its feed (one of the harness's four seams; docs/design.md). The fixture
 * server serves the feed; a FeedSource says where the app is told to fetch it and keeps what
 * was served, for the item mapping and the history: a URL compiled into the debug build
 * (BuildFieldFeed), or a subscription the app keeps in its data (SubscriptionFeed, config
 * feed.attach), which a `pm clear` deletes and the harness adds again (feed-attach.ts).
 */
import type { FeedItem } from '../../feed/feed-items.js';
import { truncateToSecond } from '../../feed/feed-items.js';
import { renderFeed } from '../../feed/render-feed.js';
import type { FaultPlan, ItemSpec, Journal, ServedItem, ServerEffect } from '../harness.js';
import { stripQuery } from '../run-observation.js';
import type { DeviceSteps } from '../device-steps.js';
import type { AttachStep, Config } from '../../config/types.js';
import { attachFeed, type AttachHooks } from '../feed-attach.js';

export type Route = 'feed' | 'receipts';

export interface FeedSource {
  serveFeed(items: readonly ItemSpec[]): Promise<readonly ServedItem[]>;
  fault(route: Route, plan: FaultPlan): void;
  clearFaults(): void;
  /** The server path of `route`. */
  routePath(route: Route): string;
  journal(route: Route): readonly Journal[];
  effects(): readonly ServerEffect[];
  /** Every item served in this scenario, by link and title (what the posts map to). */
  indexEntries(): Iterable<{ key: string; title: string }>;
  /** The links of every item served in this scenario. */
  servedLinks(): string[];
  /**
   * When the feed is attached again after a `pm clear`: `never` (a URL in the build), `clear` (at
   * once: the steps start the app themselves, so it knows the feed from its first start), `start`
   * (once the app started again and made its database, which an sql step edits).
   */
  readonly attachAt: 'never' | 'clear' | 'start';
  /** After a `pm clear` (at `attachAt`): points the app at the feed again. */
  attachAfterClear(hooks: AttachHooks): Promise<void>;
}

/**
 * The feed URL is a field of the app's debug build, pointing at the fixture server: nothing to
 * attach, the feed is whatever the server serves at `feed.path`.
 */
export class BuildFieldFeed implements FeedSource {
  private readonly index = new Map<string, { key: string; title: string }>();
  private readonly served = new Map<string, ServedItem>();

  constructor(
    protected readonly steps: DeviceSteps,
    private readonly scenario: string,
    /** The server journal's length when the scenario began: its requests are the ones after it. */
    private readonly journalStart: number,
  ) {}

  private linkFor(label: string): string {
    return `${this.steps.ctx.linkBase}/${this.scenario}/${encodeURIComponent(label)}`;
  }

  async serveFeed(items: readonly ItemSpec[]): Promise<readonly ServedItem[]> {
    const steps = this.steps;
    const now = await steps.deviceNow();
    const feed: FeedItem[] = [];
    const served: ServedItem[] = [];
    for (const spec of items) {
      const link = spec.link === 'missing' ? null : spec.link === 'empty' ? '' : this.linkFor(spec.label);
      const title = spec.title ?? spec.label;
      let publishedAt: number;
      if (spec.rawDate !== undefined) {
        feed.push({ link, title, published: { kind: 'raw', text: spec.rawDate } });
        publishedAt = 0;
      } else {
        const at = truncateToSecond(spec.atMs ?? now - (spec.ageMs ?? 0));
        feed.push({ link, title, published: { kind: 'at', ms: at } });
        publishedAt = at;
      }
      const item: ServedItem = { label: spec.label, item: link ?? '', title, publishedAt };
      served.push(item);
      const previous = this.served.get(spec.label);
      if (!previous || previous.title !== item.title || previous.publishedAt !== item.publishedAt || previous.item !== item.item) {
        steps.record({ type: 'published', t: now, item: item.item, publishedAt, title, label: spec.label });
      }
      this.served.set(spec.label, item);
      this.index.set(`${item.item}\u0000${title}`, { key: item.item, title });
    }
    const xml = renderFeed(steps.config.feed.format, feed);
    steps.ctx.server.setFeed({ xml });
    steps.flushCommands();
    steps.reproSteps.push({ kind: 'feed', t: now, xml, note: served.map((s) => `${s.label}${s.publishedAt === 0 ? ' (bad date)' : ''}`).join(', ') });
    return served;
  }

  fault(route: Route, plan: FaultPlan): void {
    const steps = this.steps;
    steps.ctx.server.setFault(this.routePath(route), plan);
    steps.flushCommands();
    steps.reproSteps.push({ kind: 'fault', t: steps.deviceTimeEstimate(), route: this.routePath(route), plan: JSON.stringify(plan) });
    steps.action('fault', { detail: `${this.routePath(route)}: ${JSON.stringify(plan)}` });
  }

  clearFaults(): void {
    const steps = this.steps;
    steps.ctx.server.clearFaults();
    steps.flushCommands();
    steps.reproSteps.push({ kind: 'fault', t: steps.deviceTimeEstimate(), route: '*', plan: 'none' });
    steps.action('fault', { detail: 'every route: none' });
  }

  routePath(route: Route): string {
    return route === 'feed' ? this.steps.config.feed.path : this.steps.config.backend.path;
  }

  journal(route: Route): readonly Journal[] {
    const path = this.routePath(route);
    return this.steps.ctx.server
      .journal()
      .slice(this.journalStart)
      .filter((j) => stripQuery(j.path) === path)
      .map((j) => ({ method: j.method, path: j.path, status: j.status, headers: j.headers, body: j.body, ...(j.dropped ? { dropped: true } : {}) }));
  }

  effects(): readonly ServerEffect[] {
    const server = this.steps.ctx.server;
    const first = server.journal()[this.journalStart]?.seq ?? Number.POSITIVE_INFINITY;
    return server
      .effects()
      .filter((e) => e.seq >= first)
      .map((e) => ({ key: e.key, link: e.link }));
  }

  indexEntries(): Iterable<{ key: string; title: string }> {
    return this.index.values();
  }

  servedLinks(): string[] {
    return [...this.served.values()].map((s) => s.item);
  }

  get attachAt(): FeedSource['attachAt'] {
    return 'never';
  }

  attachAfterClear(_hooks: AttachHooks): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The feed is a subscription the app keeps in its data (Feeder's `feeds` rows): served as a build
 * field's is, and attached again with feed.attach after every `pm clear` (the session attached
 * it once at its start).
 */
export class SubscriptionFeed extends BuildFieldFeed {
  constructor(
    steps: DeviceSteps,
    scenario: string,
    journalStart: number,
    private readonly attach: readonly AttachStep[],
  ) {
    super(steps, scenario, journalStart);
  }

  override get attachAt(): FeedSource['attachAt'] {
    return this.attach.some((step) => 'sql' in step) ? 'start' : 'clear';
  }

  override attachAfterClear(hooks: AttachHooks): Promise<void> {
    return attachFeed(this.steps, this.attach, 'after-clear', hooks);
  }
}

/** The FeedSource for the config: the feed URL is a build field unless feed.attach says how to subscribe. */
export function feedSourceFor(config: Config, steps: DeviceSteps, scenario: string, journalStart: number): FeedSource {
  if (config.feed.attach !== undefined) return new SubscriptionFeed(steps, scenario, journalStart, config.feed.attach);
  return new BuildFieldFeed(steps, scenario, journalStart);
}
