import type { Generated } from 'kysely';
// The devices domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

/** A relying party's installation on one session (spec 1 §3): what it is called, where to push to it, what commands it takes. */
export interface DevicesTable {
  uid: string;
  /** 16 random bytes, made by the server at registration. */
  id: string;
  /** The handle (id_hash) of the session it is registered on; the device goes with it. One device per session. */
  session_id_hash: string | null;
  /** Display-safe text chosen by the client, at most 255 characters. */
  name: string | null;
  /** desktop, mobile, tablet, vr, tv or another word of at most 16 characters. */
  type: string | null;
  created_at: number;
  /** The Web Push subscription endpoint (https, on an allowed push service host). */
  push_callback: string | null;
  /** The subscription's P-256 public key (base64url); pushes are encrypted to it (RFC 8291). */
  push_public_key: string | null;
  /** The subscription's 16-byte auth secret (base64url). */
  push_auth_key: string | null;
  /** 1 once the push service answered 404 or 410 for the endpoint; 0 again when the client registers a new subscription. */
  push_endpoint_expired: Generated<number>;
  /** A JSON object: command name → the data the device publishes for it (at most 2048 characters each). */
  available_commands: string | null;
}

/** A command one device sent another (POST /account/devices/invoke_command), until read past or expired. */
export interface DeviceCommandsTable {
  /** The command's index: counts in insertion order. */
  idx: Generated<number>;
  uid: string;
  /** The target device. */
  device_id: string;
  /** One of the names the target lists in its availableCommands. */
  command: string;
  /** The sender's JSON payload (at most 2048 characters), usually encrypted to the target's keys. */
  payload: string;
  /** The sending device's id; null when the sender has no device. */
  sender: string | null;
  created_at: number;
  /** created_at + the ttl asked for: past it the command is never delivered. */
  expires_at: number;
}

/** The devices domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface DevicesTables {
  devices: DevicesTable;
  device_commands: DeviceCommandsTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends DevicesTables {}
}
