import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { routesOf, type Domain } from '../../domain.js';
import type { Database } from '../../storage/schema.js';
import type { SessionsService } from '../sessions/index.js';
import type { PushHost } from './push-hosts.js';
import { deviceRoutes } from './routes.js';
import { DevicesService } from './service.js';
import { deleteOtherDevices } from './store.js';

// The devices domain: the device a relying party registers on its session (name, type, Web Push
// subscription, commands), the account's device list and the attached-clients view. A device goes
// with its session, whichever way the session ends.

export { devicesConfig } from './config.js';
export { DevicesService } from './service.js';
export { parsePushHosts, pushCallbackProblem, type PushHost } from './push-hosts.js';

export interface DevicesDomainDeps {
  db: Kysely<Database>;
  clock: Clock;
  sessions: SessionsService;
  pushAllowedHosts: readonly PushHost[];
}

export function createDevicesDomain(deps: DevicesDomainDeps): Domain<DevicesService> {
  const devices = new DevicesService(deps);
  deps.sessions.onSessionEnded((db, _uid, sessionId) => devices.sessionEnded(db, sessionId));
  return {
    name: 'devices',
    service: devices,
    routes: routesOf(deviceRoutes, { devices }),
    hooks: {
      onAccountDeleted: (trx, uid) => deleteOtherDevices(trx, uid, null),
      onPasswordChanged: (trx, uid, keep) => devices.passwordChanged(trx, uid, keep),
      onPasswordReset: (trx, uid) => deleteOtherDevices(trx, uid, null),
    },
  };
}
