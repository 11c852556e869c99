import { routesOf, type Domain } from '../../domain.js';
import { deviceRoutes } from './routes.js';
import { DevicesService, type DevicesDeps } from './service.js';
export { devicesDomain } from './manifest.js';

// The devices domain: the device a relying party registers on its session (name, type, Web Push
// subscription, commands), the account's device list and the attached-clients view. A device goes
// with its session, whichever way the session ends. Account changes are pushed to the devices
// (Web Push, through a bounded queue outside the request).

export { devicesConfig } from './config.js';
export { DevicesService, type Pusher, type RefreshTokenSource } from './service.js';
export { pushEvents, ACCOUNT_EVENT_TTL_SECONDS } from './push-events.js';
export { checkPushCallback, parsePushHosts, type PushCallbackCheck, type PushHost } from './push-hosts.js';

/** The devices domain needs what its service needs. */
export type DevicesDomainDeps = DevicesDeps;

export function createDevicesDomain(deps: DevicesDomainDeps): Domain<DevicesService> {
  const devices = new DevicesService(deps);
  deps.sessions.onSessionEnded((db, uid, sessionId) => devices.sessionEnded(db, uid, sessionId));
  return {
    name: 'devices',
    service: devices,
    routes: routesOf(deviceRoutes, { devices }),
    hooks: {
      onAccountDeleted: (trx, uid) => devices.accountDeleted(trx, uid),
      onPasswordChanged: (trx, uid, keep) => devices.passwordChanged(trx, uid, keep),
      onPasswordReset: (trx, uid) => devices.passwordReset(trx, uid),
      onAccountChanged: (trx, uid, change) => devices.accountChanged(trx, uid, change),
    },
  };
}
