import type { FastifyInstance, FastifyPluginAsync, FastifyTypeProvider, RawServerDefault } from 'fastify';
import type { StrategyMap } from './http/auth.js';
import { afterCommit } from './storage/after-commit.js';
import type { Trx } from './storage/executor.js';

// The contract every domain folder keeps (README "Layout", portal ADR 0001). A domain is
// `domains/<name>/` with the role files it needs — routes.ts (schemas + thin handlers), service.ts
// (rules), store.ts (its tables' queries), config.ts (its config slice) — and index.ts, its only
// public face. The index exports a factory `create<Name>Domain(deps)` that takes the domain's
// declared dependencies (platform pieces and the services of domains composed before it) and
// returns a `Domain`: its service, its routes, the auth strategies it contributes and its account
// lifecycle hooks. `app.ts` calls the factories in order and hands the list to `composeDomains`.

/**
 * What a domain does when something happens to a whole account. Each hook runs inside the
 * caller's transaction and touches only its own domain's tables, so the account-wide change
 * commits or rolls back as one.
 */
export interface AccountHooks {
  /** The account is being deleted: remove every row of it (the account core deletes its own rows last). */
  onAccountDeleted?(trx: Trx, uid: string): Promise<void>;
  /**
   * A password change finished: end what the old password granted. `keep.sessionTokenId` is the
   * session the caller continues with (already created); whatever belongs to it survives.
   * `keep.replaces` is the session it replaces (ended with the others): what hung on that one
   * (its device) may move to the new session.
   */
  onPasswordChanged?(trx: Trx, uid: string, keep: PasswordChangeKeep): Promise<void>;
  /** The password was reset (kB may be new): end every session, token and grant of the account. */
  onPasswordReset?(trx: Trx, uid: string): Promise<void>;
  /** Something relying parties show or check changed (see AccountChange): tell whoever needs to hear it. */
  onAccountChanged?(trx: Trx, uid: string, change: AccountChange): Promise<void>;
  /**
   * The primary address changed (secondary emails' set_primary): drop what was mailed to the old
   * one and would let its reader in without the password (reset codes and tokens, unblock codes).
   */
  onPrimaryEmailChanged?(trx: Trx, uid: string): Promise<void>;

  // The after-commit phase: run once the transaction that made the change has committed (never
  // when it rolled back), outside it, after every domain's `on…` hook. For effects that must not
  // happen for a change that may still roll back, and whose loss in a crash is acceptable (a
  // push, a cache dropped on another instance). What must survive a crash is a job instead,
  // enqueued in the `on…` hook (jobs/): it commits with the change and is retried until done.
  // A failure is reported as a process warning; it cannot fail a change already committed.

  /** The account's deletion committed. */
  afterAccountDeleted?(uid: string): Promise<void>;
  /** A password change committed (the `on…` hook already ended what the old password granted). */
  afterPasswordChanged?(uid: string): Promise<void>;
  /** A password reset committed. */
  afterPasswordReset?(uid: string): Promise<void>;
}

type AfterHookName = 'afterAccountDeleted' | 'afterPasswordChanged' | 'afterPasswordReset';

/**
 * What changed on an account, as the account's devices are told of it (issue 11):
 * - `profile`: what a relying party shows of the account — the primary address, display name,
 *   avatar, locale, the two-step methods (amr) — so devices re-read the profile;
 * - `state`: the account's or one of its sessions' confirmation, so devices re-check their state.
 * A domain that makes such a change calls `AccountRecords.accountChanged(trx, uid, change)` inside
 * the transaction that makes it, e.g. `await records.accountChanged(trx, uid, 'profile')` after a
 * new primary address is written. Confirming the primary address reports `state` by itself.
 */
export type AccountChange = 'profile' | 'state';

export interface PasswordChangeKeep {
  sessionTokenId: string | null;
  replaces?: string | null;
}

export type RoutesPlugin = (app: FastifyInstance) => Promise<void>;

/** A routes plugin bound to its options (the domain's services), as `Domain.routes` takes it. */
export function routesOf<O extends Record<string, unknown>, P extends FastifyTypeProvider>(
  plugin: FastifyPluginAsync<O, RawServerDefault, P>, options: O,
): RoutesPlugin {
  return async (app) => {
    // The type provider only shapes handler types inside the plugin; Fastify registers it as is.
    await app.register(plugin as unknown as FastifyPluginAsync<O>, options);
  };
}

export interface Domain<S = unknown> {
  /** The folder name under domains/. */
  name: string;
  service: S;
  /** Routes under /v1. */
  routes?: RoutesPlugin;
  /** Routes at the server root (pages that emailed links open, /.well-known documents). */
  rootRoutes?: RoutesPlugin;
  /** Auth strategies, by the name routes use in `config.auth`. */
  strategies?: StrategyMap;
  hooks?: AccountHooks;
  /** Installs what applies to every route (customs' rate-limit hooks), once the routes' schemas are known. */
  install?(server: FastifyInstance): void | Promise<void>;
  /** Releases what it holds (timers, connections) when the server stops. */
  close?(): void | Promise<void>;
  /** Further services it offers to the domains composed after it, by key (beside `service`). */
  provides?: Record<string, unknown>;
}

type HookName = keyof AccountHooks;

/**
 * The account lifecycle: every domain's hooks, run in reverse composition order (a domain's rows
 * go before those of the domains it was built on). Filled once, after every domain is created;
 * services built earlier hold it and call it at request time.
 */
export class AccountLifecycle {
  private hooks: { name: string; hooks: AccountHooks }[] = [];

  register(name: string, hooks: AccountHooks): void {
    this.hooks.unshift({ name, hooks });
  }

  /** The domains that declared `hook` (for tests and docs). */
  domainsWith(hook: HookName): string[] {
    return this.hooks.filter((h) => h.hooks[hook]).map((h) => h.name);
  }

  /** A copy without one domain's hooks: how the deletion contract test proves it would notice. */
  without(name: string): AccountLifecycle {
    const copy = new AccountLifecycle();
    copy.hooks = this.hooks.filter((h) => h.name !== name);
    return copy;
  }

  async accountDeleted(trx: Trx, uid: string): Promise<void> {
    for (const { hooks } of this.hooks) await hooks.onAccountDeleted?.(trx, uid);
    await this.afterCommitOf(trx, 'afterAccountDeleted', uid);
  }

  async passwordChanged(trx: Trx, uid: string, keep: PasswordChangeKeep): Promise<void> {
    for (const { hooks } of this.hooks) await hooks.onPasswordChanged?.(trx, uid, keep);
    await this.afterCommitOf(trx, 'afterPasswordChanged', uid);
  }

  async passwordReset(trx: Trx, uid: string): Promise<void> {
    for (const { hooks } of this.hooks) await hooks.onPasswordReset?.(trx, uid);
    await this.afterCommitOf(trx, 'afterPasswordReset', uid);
  }

  async accountChanged(trx: Trx, uid: string, change: AccountChange): Promise<void> {
    for (const { hooks } of this.hooks) await hooks.onAccountChanged?.(trx, uid, change);
  }

  async primaryEmailChanged(trx: Trx, uid: string): Promise<void> {
    for (const { hooks } of this.hooks) await hooks.onPrimaryEmailChanged?.(trx, uid);
  }

  /** Registers `hook`'s after-commit phase on `trx` (storage/after-commit.ts); the hooks then run one after the other. */
  private async afterCommitOf(trx: Trx, hook: AfterHookName, uid: string): Promise<void> {
    const run = this.hooks.filter((h) => h.hooks[hook]);
    if (!run.length) return;
    await afterCommit(trx, () => {
      void (async () => {
        for (const { name, hooks } of run) {
          try {
            await hooks[hook]!(uid);
          } catch (err) {
            process.emitWarning(new Error(`${name}'s ${hook} failed: ${(err as Error)?.message ?? String(err)}`), 'AfterCommitWarning');
          }
        }
      })();
    });
  }
}

/**
 * Collects what the domains contribute: one strategy map (a name taken twice is a startup error)
 * and the lifecycle hooks. Routes are registered by the caller, which knows the prefixes.
 */
export function composeDomains(domains: Domain[], lifecycle: AccountLifecycle): { strategies: StrategyMap } {
  const strategies: StrategyMap = {};
  const names = new Set<string>();
  for (const domain of domains) {
    if (names.has(domain.name)) throw new Error(`domain ${domain.name} is composed twice`);
    names.add(domain.name);
    for (const [name, strategy] of Object.entries(domain.strategies ?? {})) {
      if (strategies[name as keyof StrategyMap]) throw new Error(`auth strategy ${name} is contributed by two domains`);
      (strategies as Record<string, unknown>)[name] = strategy;
    }
    if (domain.hooks) lifecycle.register(domain.name, domain.hooks);
  }
  return { strategies };
}
