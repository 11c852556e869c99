export { TesseraClient, type OperationErrors, type ErrorOf } from './generated/client.js';
export type { Body, Query, Reply } from './types.js';
export { TesseraAccounts, type SignedIn, type Keys } from './flows.js';
export { TesseraApiError, TesseraConnectionError, PasswordPolicyError, isTesseraError, type ErrorName } from './errors.js';
export {
  checkPassword, PASSWORD_MIN_LENGTH, PASSWORD_REASONS, type PasswordCheck, type PasswordProblem,
} from '@tessera/protocol';
export {
  Transport, type TokenArg, type TokenPresentation, type TokenRef, type TransportOptions, type TransportOptions as ClientOptions,
} from './transport.js';
export type { paths } from './generated/api.js';
