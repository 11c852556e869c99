import { appError, type AppError } from '@tessera/errors';
import { normalizeEmail } from '../../email-address.js';
import { ipv6Prefix, plainAddress } from '../../ip-address.js';
import { ALLOWED, type Counted, type LimitStore, type MemoryLimitStore, type Verdict } from './counters.js';
import type { Property, Rule } from './rules.js';

/** Who a request is about: always its client address, and the account when the request names it. */
export interface Subject {
  ip: string;
  email?: string | undefined;
  uid?: string | undefined;
}

export interface CustomsLog {
  warn(obj: object, msg: string): void;
}

export interface CustomsOptions {
  enabled: boolean;
  rules: Rule[];
  /** Counters, blocks and bans: in process, or in Redis shared by every instance. */
  store: LimitStore;
  /** In-process counters for `report` rules on every endpoint (they only log, so need not be shared). */
  local: MemoryLimitStore;
  /** `store` is remote (Redis): endpoint checks read bans through a short-lived local cache. */
  shared: boolean;
  /** When the store cannot answer: refuse rate-limited actions (503/201) instead of allowing them. */
  failClosed: boolean;
  ignore: { ips: string[]; emails: RegExp[]; uids: string[] };
  log: CustomsLog;
  now: () => number;
  /** How long an instance trusts what it read of a client address's ban (shared store only). */
  banCacheMs?: number;
}

/**
 * The client address as counted: IPv4 as is, IPv4-mapped IPv6 as IPv4, other IPv6 by its /64
 * (one subscriber usually holds a whole /64, so counting single addresses would count nothing).
 */
export function addressKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const plain = plainAddress(ip);
  return ipv6Prefix(plain, 4) ?? plain;
}

/** "in 15 minutes" in the caller's language (Accept-Language), English when none fits. */
export function retryAfterLocalized(seconds: number, languages: string | null): string {
  const wanted = (languages ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  let locale = 'en';
  try {
    locale = Intl.RelativeTimeFormat.supportedLocalesOf(wanted)[0] ?? 'en';
  } catch {
    // A tag Intl refuses: English.
  }
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  if (seconds < 90) return format.format(Math.max(1, Math.round(seconds)), 'second');
  if (seconds < 90 * 60) return format.format(Math.round(seconds / 60), 'minute');
  return format.format(Math.round(seconds / 3600), 'hour');
}

/**
 * Rate limiting ("customs", protocol.md §7): every attackable action is checked against the rules
 * before it runs, failures are counted after, and an unblock code lifts blocks.
 */
export class Customs {
  private readonly byAction = new Map<string, Rule[]>();
  private readonly defaults: Rule[];
  private readonly banCache = new Map<string, { until: number; checkedAt: number }>();
  /** The usual `default` rule (one, per ip, report): counted here on the hot path, without the store's generality. */
  private readonly endpointRule: Rule | null;
  private readonly endpointCounts = new Map<string, { n: number; expiresAt: number }>();
  private lastStoreWarning = 0;

  constructor(private readonly o: CustomsOptions) {
    for (const rule of o.rules) this.byAction.set(rule.action, [...(this.byAction.get(rule.action) ?? []), rule]);
    this.defaults = this.byAction.get('default') ?? [];
    const [only] = this.defaults;
    this.endpointRule = this.defaults.length === 1 && only!.policy === 'report' && only!.property === 'ip' ? only! : null;
  }

  get enabled(): boolean {
    return this.o.enabled;
  }

  /** Whether rules name the action (routes may name only those, so a typo fails at start). */
  knows(action: string): boolean {
    return this.byAction.has(action);
  }

  /** Every action with rules. */
  actions(): string[] {
    return [...this.byAction.keys()];
  }

  private ignored(subject: Subject): boolean {
    const { ignore } = this.o;
    return ignore.ips.includes(subject.ip)
      || (subject.email !== undefined && ignore.emails.some((re) => re.test(subject.email!)))
      || (subject.uid !== undefined && ignore.uids.includes(subject.uid));
  }

  /** The property values of a subject. An account named only by uid (or only by email) counts as itself under either. */
  private values(subject: Subject): Partial<Record<Property, string>> {
    const ip = addressKey(subject.ip);
    const email = subject.email !== undefined ? normalizeEmail(subject.email) : subject.uid !== undefined ? `uid:${subject.uid}` : undefined;
    const uid = subject.uid ?? (subject.email !== undefined ? `email:${email}` : undefined);
    return {
      ip,
      email,
      uid,
      ip_email: email !== undefined ? `${ip} ${email}` : undefined,
      ip_uid: uid !== undefined ? `${ip} ${uid}` : undefined,
    };
  }

  private items(actions: string[], subject: Subject): Counted[] {
    const values = this.values(subject);
    const items: Counted[] = [];
    for (const action of actions) {
      // An action without rules of its own is counted under the default rules, per action.
      for (const rule of this.byAction.get(action) ?? this.defaults) {
        const value = values[rule.property];
        if (value !== undefined) items.push({ rule, action, value });
      }
    }
    return items;
  }

  private storeFailed(err: unknown, failClosed: boolean): Verdict {
    const now = this.o.now();
    if (now - this.lastStoreWarning > 10_000) {
      this.lastStoreWarning = now;
      this.o.log.warn({ reason: (err as Error).message, failClosed }, 'rate-limit store unavailable');
    }
    if (failClosed) throw appError('SERVER_BUSY', { retryAfter: 5 }, 'Rate limiting is unavailable for a moment: retry after retryAfter seconds');
    return ALLOWED;
  }

  private report(reports: Counted[]): void {
    for (const r of reports) {
      // The address is logged only when the rule counts addresses alone; accounts never are.
      this.o.log.warn({ action: r.action, property: r.rule.property, ...(r.rule.property === 'ip' ? { ip: r.value } : {}) }, 'rate limit reached (report only)');
    }
  }

  /**
   * Checks and counts the actions for the subject. The verdict says whether they are blocked
   * (and whether by a ban); the caller answers. A store failure fails open or closed (503/201).
   */
  async check(actions: string[], subject: Subject): Promise<Verdict> {
    if (!this.o.enabled || this.ignored(subject)) return ALLOWED;
    const items = this.items(actions, subject);
    let verdict: Verdict;
    try {
      verdict = await this.o.store.apply(items, true);
    } catch (err) {
      return this.storeFailed(err, this.o.failClosed);
    }
    this.report(verdict.reports);
    return verdict;
  }

  /** Counts a failure (a wrong password, code, …): past the limit the next attempts are refused. */
  async fail(action: string, subject: Subject): Promise<void> {
    if (!this.o.enabled || this.ignored(subject)) return;
    try {
      const verdict = await this.o.store.apply(this.items([action], subject), false);
      this.report(verdict.reports);
    } catch (err) {
      // The request already failed; a failure that could not be counted is only logged.
      this.storeFailed(err, false);
    }
  }

  /**
   * The check every API route gets (protocol.md §7.1 `checkAllEndpoints`): the `default` rules,
   * counted per endpoint, and any ban of the client address. Synchronous when nothing is remote.
   * Fails open: a route with no rules of its own guards nothing a store outage would expose.
   */
  checkEndpoint(endpoint: string, ip: string, languages: () => string | null): void | Promise<void> {
    if (!this.o.enabled || this.o.ignore.ips.includes(ip)) return;
    const key = addressKey(ip);
    if (this.endpointRule) {
      this.countEndpoint(this.endpointRule, endpoint, key);
      if (this.o.shared) return this.checkBan(key, languages);
      const ban = this.o.local.banTtl('ip', key);
      if (ban > 0) throw this.throttled({ blocked: true, banned: true, retryAfterMs: ban, reports: [] }, languages());
      return;
    }
    const items: Counted[] = this.defaults.map((rule) => ({ rule, action: endpoint, value: key }));
    const onlyReports = items.every((i) => i.rule.policy === 'report');
    if (!this.o.shared) {
      const verdict = this.o.local.apply(items, true);
      this.report(verdict.reports);
      if (verdict.blocked) throw this.throttled(verdict, languages());
      return;
    }
    if (onlyReports) {
      this.report(this.o.local.apply(items, false).reports);
      return this.checkBan(key, languages);
    }
    return Promise.resolve(this.o.store.apply(items, true)).then((verdict) => {
      this.report(verdict.reports);
      if (verdict.blocked) throw this.throttled(verdict, languages());
    }, (err: unknown) => {
      this.storeFailed(err, false);
    });
  }

  /** The report-only `default` rule of an endpoint: one Map entry per endpoint and address, in process. */
  private countEndpoint(rule: Rule, endpoint: string, key: string): void {
    const now = this.o.now();
    const id = `${endpoint} ${key}`;
    const entry = this.endpointCounts.get(id);
    if (!entry || entry.expiresAt <= now) {
      // Report-only counts: when too many addresses are counted at once, forgetting them only delays a report.
      if (this.endpointCounts.size >= 200_000) this.endpointCounts.clear();
      this.endpointCounts.set(id, { n: 1, expiresAt: now + rule.windowMs });
    } else if (++entry.n === rule.max + 1) {
      this.report([{ rule, action: endpoint, value: key }]);
    }
  }

  /** A ban of the address in the shared store, read at most once per `banCacheMs` per address. */
  private checkBan(key: string, languages: () => string | null): void | Promise<void> {
    const now = this.o.now();
    const cached = this.banCache.get(key);
    const refuse = (until: number) => {
      if (until > now) throw this.throttled({ blocked: true, banned: true, retryAfterMs: until - now, reports: [] }, languages());
    };
    if (cached && now - cached.checkedAt < (this.o.banCacheMs ?? 1000)) return refuse(cached.until);
    return Promise.resolve(this.o.store.banTtl('ip', key)).then((ttl) => {
      if (this.banCache.size > 100_000) this.banCache.clear();
      this.banCache.set(key, { until: ttl > 0 ? now + ttl : 0, checkedAt: now });
      refuse(now + ttl);
    }, (err: unknown) => {
      this.storeFailed(err, false);
    });
  }

  /** Lifts blocks (never bans) on the subject's values, for every action: a valid unblock code did it. */
  async unblock(subject: Subject): Promise<void> {
    const values = this.values(subject);
    const pairs = (Object.entries(values) as [Property, string | undefined][])
      .filter((e): e is [Property, string] => e[1] !== undefined)
      .map(([property, value]) => ({ property, value }));
    try {
      await this.o.store.clearBlocks(pairs, this.actions());
    } catch (err) {
      this.storeFailed(err, false);
    }
  }

  /** 429/114 for a verdict, with retryAfter in seconds and in words. */
  throttled(verdict: Verdict, languages: string | null): AppError {
    const retryAfter = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    return appError('THROTTLED', { retryAfter, retryAfterLocalized: retryAfterLocalized(retryAfter, languages) },
      `Too many requests: retry after ${retryAfter} seconds`);
  }
}
