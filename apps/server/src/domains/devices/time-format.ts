// The `…Formatted` times of devices and attached clients (protocol.md §5.7, §5.8): how long ago
// something happened, in the caller's language (Accept-Language), English when none is supported.
// Intl.RelativeTimeFormat carries the translations (Node's full ICU), so no table is kept here.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Formatters by resolved locale: a handful in practice (Intl's locale list bounds it). */
const formatters = new Map<string, Intl.RelativeTimeFormat>();
/** Accept-Language values already resolved, so a repeated header skips Intl's negotiation. */
const resolved = new Map<string, string>();
const RESOLVED_MAX = 256;

/** The first of the caller's languages (most preferred first, as `languagesOf` gives them) that Intl supports; else English. */
export function timeLocaleOf(languages: string | null): string {
  if (!languages) return 'en';
  const known = resolved.get(languages);
  if (known) return known;
  let locale = 'en';
  try {
    locale = Intl.RelativeTimeFormat.supportedLocalesOf(languages.split(',').map((t) => t.trim()).filter(Boolean))[0] ?? 'en';
  } catch {
    // A tag Intl refuses (well-formed but invalid): English.
  }
  if (resolved.size >= RESOLVED_MAX) resolved.clear();
  resolved.set(languages, locale);
  return locale;
}

function formatterFor(locale: string): Intl.RelativeTimeFormat {
  let f = formatters.get(locale);
  if (!f) {
    // `auto`: "now", "yesterday", "last month" where the language has such words.
    f = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
    formatters.set(locale, f);
  }
  return f;
}

/**
 * "now", "5 minutes ago", "3 hours ago", "yesterday", "2 months ago": the unit is the largest that
 * fits (under 45 s is now; minutes under 45 min; hours under 22 h; days under 26 d; months under
 * 320 d; then years), rounded. A time after `now` (a clock running ahead) reads as now.
 */
export function formatTimeAgo(time: number, now: number, locale: string): string {
  const f = formatterFor(locale);
  const ago = Math.max(0, now - time);
  if (ago < 45 * SECOND) return f.format(0, 'second');
  if (ago < 45 * MINUTE) return f.format(-Math.max(1, Math.round(ago / MINUTE)), 'minute');
  if (ago < 22 * HOUR) return f.format(-Math.max(1, Math.round(ago / HOUR)), 'hour');
  const days = ago / DAY;
  if (days < 26) return f.format(-Math.max(1, Math.round(days)), 'day');
  if (days < 320) return f.format(-Math.max(1, Math.round(days / 30.44)), 'month');
  return f.format(-Math.max(1, Math.round(days / 365.25)), 'year');
}
