// What the account's devices are pushed when the account changes. The `command` names are the
// wire names relying parties (Firefox's sync among them) already switch on; `version` 1 is the
// payload format. Each payload is encrypted to the receiving device's subscription keys. A push
// without a payload (`accountStateChanged`) is the protocol's signal that the account's state
// changed: the device re-checks it (its session's confirmation, the account's) with the API.

/** Account-state pushes are kept this long by the push service for a device that is offline. */
export const ACCOUNT_EVENT_TTL_SECONDS = 24 * 3600;

export const pushEvents = {
  deviceConnected: (deviceName: string | null) => ({ version: 1, command: 'fxaccounts:device_connected', data: { deviceName } }),
  deviceDisconnected: (id: string) => ({ version: 1, command: 'fxaccounts:device_disconnected', data: { id } }),
  commandReceived: (c: { command: string; index: number; sender: string | null; url: string }) => ({ version: 1, command: 'fxaccounts:command_received', data: c }),
  verifyLogin: (d: { code: string; device: string; at: number }) => ({ version: 1, command: 'fxaccounts:verify_login', data: d }),
  passwordChanged: () => ({ version: 1, command: 'fxaccounts:password_changed' }),
  passwordReset: () => ({ version: 1, command: 'fxaccounts:password_reset' }),
  accountDestroyed: (uid: string) => ({ version: 1, command: 'fxaccounts:account_destroyed', data: { uid } }),
  profileUpdated: () => ({ version: 1, command: 'fxaccounts:profile_updated' }),
  accountStateChanged: () => null,
};
