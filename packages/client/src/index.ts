export { TesseraClient, type Body, type Query, type Reply, type ClientOptions } from './client.js';
export { TesseraAccounts, type SignedIn, type Keys } from './flows.js';
export { TesseraApiError, isTesseraError } from './errors.js';
export { Transport, type TokenPresentation, type TransportOptions } from './transport.js';
export type { paths } from './generated/api.js';
