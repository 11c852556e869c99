import { randomBytes } from 'node:crypto';
import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { AccountChange } from '../../domain.js';
import type { RequestContext } from '../../platform/request-context.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import { meetsMinimumAal, type Session, type SessionsService, type SessionWithAccount } from '../sessions/index.js';
import { formatAttachedClients, mergeAttachedClients, refreshTokenEntries, sessionEntries } from './attached-clients.js';
import { deprecatedSessionList, deviceReply, listedDevices } from './lists.js';
import { checkPushCallback, type PushHost } from './push-hosts.js';
import { ACCOUNT_EVENT_TTL_SECONDS, pushEvents } from './push-events.js';
import { checkPushKeys } from './rules.js';
import type { AttachedClient, ListedDevice } from './schemas.js';
import { timeLocaleOf } from './time-format.js';
import {
  deleteDevice, deleteDeviceOfSession, deleteOtherDevices, findDevice, findDeviceOfSession, insertDevice, listDevices, moveDevice, updateDevice, type Device,
} from './store.js';
import { DeviceMessages } from './messages.js';
import { DevicePushes } from './pushes.js';

import type { Pusher } from './pushes.js';

export type { Pusher };
export { COMMAND_PAYLOAD_MAX, COMMAND_TTL_MAX_MS } from './messages.js';

export interface DevicesDeps {
  db: Kysely<Database>;
  clock: Clock;
  sessions: SessionsService;
  pushAllowedHosts: readonly PushHost[];
  push: Pusher;
  /** Commands that may wait for one device (DEVICE_COMMANDS_PENDING_MAX). */
  commandsPendingMax: number;
  /** The public URL of GET /v1/account/device/commands (command pushes carry it). */
  commandsUrl: string;
  /** The session confirmation codes (the emails domain): a push can carry one, too. */
  confirmations: {
    codeForSession(session: Session): Promise<string>;
    confirmSession(session: Session, code: string, ctx: RequestContext, onNoticeFailure: (err: unknown) => void): Promise<void>;
  };
  /** How long a confirmation code lives: the push carrying it is kept as long. */
  codeLifetimeSeconds: number;
  /** The account's sessions opened by a Google or Apple sign-in (handle → provider); from the linked-accounts domain. */
  sessionProviders?: (uid: string) => Promise<Map<string, string>>;
  /** The account's OAuth refresh tokens (the oauth domain): a third source of attached clients. */
  refreshTokens?: RefreshTokenSource;
}

/** What attached clients need of OAuth refresh tokens. `id` is the token's handle (its SHA-256), never the token. */
export interface RefreshTokenSource {
  list(uid: string): Promise<{ id: string; clientId: string; clientName: string; scope: string[]; createdAt: number; lastUsedAt: number }[]>;
  /** Revokes the account's refresh token `id` (of `clientId` when given); false when no such token. */
  revoke(uid: string, id: string, clientId?: string): Promise<boolean>;
  /** Revokes every refresh token of the account for the client; how many. */
  revokeClient(uid: string, clientId: string): Promise<number>;
}


/** POST /account/device: what the client sends (validated by the route's schema). */
export interface DeviceInput {
  id?: string | undefined;
  name?: string | undefined;
  type?: string | undefined;
  pushCallback?: string | undefined;
  pushPublicKey?: string | undefined;
  pushAuthKey?: string | undefined;
  availableCommands?: Record<string, string> | undefined;
}


/** A device as a session below its account's AAL sees another one: without its push endpoint and keys. */
function withoutPushSubscription(d: Device): Device {
  return { ...d, pushCallback: null, pushPublicKey: null, pushAuthKey: null };
}

function invalid(key: string, message: string): never {
  throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: [key], rule: 'push-host', message } }, `Invalid parameter in request body: ${message}`);
}

export class DevicesService {
  readonly pushes: DevicePushes;
  /** Commands, notifications and sign-in confirmation pushes between the account's devices. */
  readonly messages: DeviceMessages;

  constructor(private readonly deps: DevicesDeps) {
    this.pushes = new DevicePushes(deps);
    this.messages = new DeviceMessages(deps, this.pushes);
  }
  /** The input applied to a device: a new push tuple clears pushEndpointExpired (spec 1 §4). */
  private apply(device: Device, input: DeviceInput): Device {
    const next = { ...device };
    // An empty name is no name: it reads back null, as a device registered without one does.
    if (input.name !== undefined) next.name = input.name === '' ? null : input.name;
    if (input.type !== undefined) next.type = input.type;
    if (input.availableCommands !== undefined) next.availableCommands = input.availableCommands;
    if (input.pushCallback !== undefined) {
      // Stored as parsed and checked (normalised), never as sent: one URL, read one way.
      let callback = '';
      if (input.pushCallback !== '') {
        const checked = checkPushCallback(input.pushCallback, this.deps.pushAllowedHosts);
        if (checked.href === null) invalid('pushCallback', checked.problem);
        callback = checked.href;
      }
      // A callback sent without its key pair resets both keys to empty (spec 1 §5).
      const publicKey = input.pushPublicKey ?? '';
      const authKey = input.pushAuthKey ?? '';
      checkPushKeys(publicKey, authKey);
      if (callback !== device.pushCallback || publicKey !== device.pushPublicKey || authKey !== device.pushAuthKey) {
        next.pushCallback = callback;
        next.pushPublicKey = publicKey;
        next.pushAuthKey = authKey;
        next.pushEndpointExpired = false;
      }
    }
    return next;
  }

  /**
   * POST /account/device: registers the calling session's device (no `id`) or updates it. A
   * session has at most one device: registering a second is 124, and so is naming another device
   * while the session has one; naming a device the session does not have is 123.
   */
  async register(session: Session, input: DeviceInput) {
    const { db, clock, sessions } = this.deps;
    const own = await findDeviceOfSession(db, session.id);
    if (input.id === undefined) {
      if (own) throw appError('DEVICE_CONFLICT', { deviceId: own.id });
      const blank: Device = {
        uid: session.uid, id: randomBytes(16).toString('hex'), sessionId: session.id, name: null, type: null, createdAt: clock.now(),
        pushCallback: null, pushPublicKey: null, pushAuthKey: null, pushEndpointExpired: false, availableCommands: {},
      };
      const device = this.apply(blank, input);
      try {
        await db.transaction().execute(async (trx) => {
          await insertDevice(trx, device);
          await sessions.setHasDevice(trx, session.id, true);
        });
      } catch (err) {
        // Two registrations from one session at once: the unique session index lets one through.
        if (!isUniqueViolation(err)) throw err;
        const winner = await findDeviceOfSession(db, session.id);
        throw appError('DEVICE_CONFLICT', winner ? { deviceId: winner.id } : {});
      }
      const others = (await listDevices(db, session.uid)).filter((d) => d.id !== device.id);
      this.pushes.pushTo(others, pushEvents.deviceConnected(device.name), ACCOUNT_EVENT_TTL_SECONDS);
      return deviceReply(device);
    }
    const id = input.id.toLowerCase();
    if (!own || own.id !== id) {
      // Another device of the account, while the session has its own: update that one instead.
      if (own && (await findDevice(db, session.uid, id))) throw appError('DEVICE_CONFLICT', { deviceId: own.id });
      throw appError('DEVICE_UNKNOWN');
    }
    const device = this.apply(own, input);
    await updateDevice(db, device);
    return deviceReply(device);
  }

  /**
   * POST /account/device, before its body is checked: a device id the account does not have is
   * 123 whatever else the body holds (the incumbent's order, which its clients rely on).
   */
  async checkNamedDevice(session: Session, id: string): Promise<void> {
    if (!(await findDevice(this.deps.db, session.uid, id.toLowerCase()))) throw appError('DEVICE_UNKNOWN');
  }

  /**
   * GET /account/devices: the account's devices, most recently used first, with their last use
   * also as a relative time in `languages` (Accept-Language, most preferred first). A session not
   * confirmed at its account's AAL (issue 22: it may have proven the password only) sees its own
   * device whole, and the others without push endpoint and keys: they would let it push to them.
   */
  async list(session: SessionWithAccount, idleSince: number | undefined, languages: string | null): Promise<ListedDevice[]> {
    const { db, sessions, clock } = this.deps;
    const [all, devices] = await Promise.all([sessions.listOf(db, session.uid), listDevices(db, session.uid)]);
    const shown = meetsMinimumAal(session) ? devices : devices.map((d) => (d.sessionId === session.id ? d : withoutPushSubscription(d)));
    return listedDevices(shown, all, session.id, idleSince, clock.now(), timeLocaleOf(languages));
  }

  /** POST /account/device/destroy: the device goes, and the session it is registered on. */
  async destroy(session: Session, id: string): Promise<void> {
    const { db } = this.deps;
    const device = await findDevice(db, session.uid, id.toLowerCase());
    if (!device) throw appError('DEVICE_UNKNOWN');
    await db.transaction().execute(async (trx) => {
      await deleteDevice(trx, device.uid, device.id);
      if (device.sessionId) await this.deps.sessions.delete(trx, { id: device.sessionId, uid: device.uid });
    });
    this.pushes.pushTo(await listDevices(db, device.uid), pushEvents.deviceDisconnected(device.id), ACCOUNT_EVENT_TTL_SECONDS);
  }

  /** GET /account/attached_clients, times also relative in `languages` (Accept-Language). */
  async attachedClients(session: Session, idleSince: number | undefined, languages: string | null): Promise<AttachedClient[]> {
    const { db, sessions, clock } = this.deps;
    const [all, devices, providers, tokens] = await Promise.all([
      sessions.listOf(db, session.uid), listDevices(db, session.uid), this.deps.sessionProviders?.(session.uid) ?? new Map<string, string>(),
      this.deps.refreshTokens?.list(session.uid) ?? [],
    ]);
    const merged = mergeAttachedClients([sessionEntries(all, devices, session.id, providers), refreshTokenEntries(tokens)], idleSince);
    return formatAttachedClients(merged, clock.now(), timeLocaleOf(languages));
  }

  /**
   * POST /account/attached_client/destroy: by device id (the device and its session go), or by
   * session (its id or handle; its device goes with it). Identifiers that name different clients
   * are refused rather than guessed between.
   */
  async destroyAttachedClient(session: Session, input: { deviceId?: string | undefined; sessionTokenId?: string | undefined; refreshTokenId?: string | undefined; clientId?: string | undefined }): Promise<void> {
    const { db, sessions } = this.deps;
    const named = input.sessionTokenId ? await sessions.findNamed(db, session.uid, input.sessionTokenId) : null;
    if (input.sessionTokenId && !named) throw appError('INVALID_TOKEN', { detail: 'Unknown session' });
    if (input.deviceId) {
      const device = await findDevice(db, session.uid, input.deviceId.toLowerCase());
      if (!device) throw appError('DEVICE_UNKNOWN');
      if (named && device.sessionId !== named.id) {
        throw appError('INVALID_PARAMETER', {
          validation: { source: 'payload', keys: ['deviceId', 'sessionTokenId'], rule: 'same-client', message: 'deviceId and sessionTokenId name different clients' },
        }, 'Invalid parameter in request body: deviceId and sessionTokenId name different clients');
      }
      return this.destroy(session, device.id);
    }
    if (named) {
      await sessions.delete(db, named);
      return;
    }
    // OAuth refresh tokens: by handle (of `clientId` when both are named), or every token of a client named alone.
    const refresh = this.deps.refreshTokens;
    if (input.refreshTokenId) {
      if (!refresh || !(await refresh.revoke(session.uid, input.refreshTokenId.toLowerCase(), input.clientId?.toLowerCase()))) throw appError('REFRESH_TOKEN_UNKNOWN');
      return;
    }
    if (input.clientId && refresh) await refresh.revokeClient(session.uid, input.clientId.toLowerCase());
  }

  /** GET /account/sessions (deprecated): the account's sessions, each with its device. */
  async sessionsList(session: Session) {
    const { db, sessions } = this.deps;
    const [all, devices] = await Promise.all([sessions.listOf(db, session.uid), listDevices(db, session.uid)]);
    return deprecatedSessionList(all, devices, session.id);
  }

  // ---- hooks: they run inside the caller's transaction; their pushes are queued once it commits,
  // and dropped if it rolls back (DevicePushes.afterCommit).

  /** A session ended: its device goes with it, and the account's other devices hear of it. */
  async sessionEnded(db: Executor, uid: string, sessionId: string): Promise<void> {
    const device = await findDeviceOfSession(db, sessionId);
    if (!device) return;
    await deleteDeviceOfSession(db, sessionId);
    await this.pushes.afterCommit(db, await listDevices(db, uid), pushEvents.deviceDisconnected(device.id), ACCOUNT_EVENT_TTL_SECONDS);
  }

  /**
   * Password changed: the caller's device moves to its new session; every other device goes, and
   * is told (its session has ended).
   */
  async passwordChanged(trx: Executor, uid: string, keep: { sessionTokenId: string | null; replaces?: string | null }): Promise<void> {
    const before = await listDevices(trx, uid);
    let kept: string | null = null;
    if (keep.sessionTokenId && keep.replaces && await moveDevice(trx, uid, keep.replaces, keep.sessionTokenId)) {
      await this.deps.sessions.setHasDevice(trx, keep.sessionTokenId, true);
      kept = before.find((d) => d.sessionId === keep.replaces)?.id ?? null;
    }
    await deleteOtherDevices(trx, uid, keep.sessionTokenId);
    await this.pushes.afterCommit(trx, before.filter((d) => d.id !== kept), pushEvents.passwordChanged(), ACCOUNT_EVENT_TTL_SECONDS);
  }

  /** Password reset: every device goes, and is told. */
  async passwordReset(trx: Executor, uid: string): Promise<void> {
    const before = await listDevices(trx, uid);
    await deleteOtherDevices(trx, uid, null);
    await this.pushes.afterCommit(trx, before, pushEvents.passwordReset(), ACCOUNT_EVENT_TTL_SECONDS);
  }

  /**
   * The account changed in a way its devices show or check (`AccountChange`, domain.ts): every
   * device is pushed `fxaccounts:profile_updated` (re-read the profile) or, for `state`, a push
   * without payload (re-check the account's and the session's state). The lifecycle hook that
   * `AccountRecords.accountChanged` runs: a domain changing the profile (secondary emails, two-step)
   * calls that, inside its transaction.
   */
  async accountChanged(trx: Executor, uid: string, change: AccountChange): Promise<void> {
    const payload = change === 'profile' ? pushEvents.profileUpdated() : pushEvents.accountStateChanged();
    await this.pushes.afterCommit(trx, await listDevices(trx, uid), payload, ACCOUNT_EVENT_TTL_SECONDS);
  }

  /** The account is being deleted: every device goes, and is told. */
  async accountDeleted(trx: Executor, uid: string): Promise<void> {
    const before = await listDevices(trx, uid);
    await deleteOtherDevices(trx, uid, null);
    await this.pushes.afterCommit(trx, before, pushEvents.accountDestroyed(uid), ACCOUNT_EVENT_TTL_SECONDS);
  }
}
