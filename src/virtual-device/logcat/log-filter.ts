/**
 * logcat's tag filters, as liblog implements them (system/logging/liblog/logprint.cpp,
 * android-14.0.0_r29: filterCharToPri, android_log_addFilterRule,
 * android_log_addFilterString, filterPriForTag, android_log_shouldPrintLine).
 *
 * - `TAG:P` sets TAG's minimum priority; `TAG` alone means TAG:V.
 * - `*:P` sets the global minimum; `*` alone means *:D. The global default is V.
 * - P is one of V D I W E F S (case-insensitive), a digit, or `*` (= the global level).
 * - A filter string is split on spaces, tabs and commas; the newest rule for a tag wins.
 */
export const FilterPriority = { unknown: 0, default: 1, verbose: 2, debug: 3, info: 4, warn: 5, error: 6, fatal: 7, silent: 8 } as const;

export class LogFilter {
  private globalPriority: number = FilterPriority.verbose;
  /** Newest first, like liblog's linked list. */
  private readonly rules: { tag: string; priority: number }[] = [];

  /** Adds one `TAG[:P]` rule; false when it is invalid. */
  addRule(expression: string): boolean {
    const colon = expression.indexOf(':');
    const tagLength = colon < 0 ? expression.length : colon;
    if (tagLength === 0) return false;
    let priority: number = FilterPriority.default;
    if (colon >= 0) {
      priority = filterCharToPriority(expression[colon + 1] ?? '');
      if (priority === FilterPriority.unknown) return false;
    }
    const tag = expression.slice(0, tagLength);
    if (tag === '*') {
      this.globalPriority = priority === FilterPriority.default ? FilterPriority.debug : priority;
    } else {
      this.rules.unshift({ tag, priority: priority === FilterPriority.default ? FilterPriority.verbose : priority });
    }
    return true;
  }

  /** Adds every rule of a space/tab/comma separated string; false at the first invalid rule. */
  addString(filterString: string): boolean {
    for (const part of filterString.split(/[ \t,]/)) {
      if (part === '') continue;
      if (!this.addRule(part)) return false;
    }
    return true;
  }

  shouldPrint(tag: string, priority: number): boolean {
    return priority >= this.priorityFor(tag);
  }

  private priorityFor(tag: string): number {
    for (const rule of this.rules) {
      if (rule.tag === tag) return rule.priority === FilterPriority.default ? this.globalPriority : rule.priority;
    }
    return this.globalPriority;
  }
}

function filterCharToPriority(ch: string): number {
  const c = ch.toLowerCase();
  if (c >= '0' && c <= '9') {
    const n = c.charCodeAt(0) - 48;
    return n >= FilterPriority.silent ? FilterPriority.verbose : n;
  }
  switch (c) {
    case 'v':
      return FilterPriority.verbose;
    case 'd':
      return FilterPriority.debug;
    case 'i':
      return FilterPriority.info;
    case 'w':
      return FilterPriority.warn;
    case 'e':
      return FilterPriority.error;
    case 'f':
      return FilterPriority.fatal;
    case 's':
      return FilterPriority.silent;
    case '*':
      return FilterPriority.default;
    default:
      return FilterPriority.unknown;
  }
}
