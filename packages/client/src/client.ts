import type { paths } from './generated/api.js';
import { Transport, type TransportOptions } from './transport.js';

// One typed method per route. Request and reply types come from the OpenAPI document the server
// generates from its route schemas (src/generated/api.ts), so a schema change shows up here as a
// type error. Token arguments are the 64-hex token data the server returned.

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Op<P extends keyof paths, M extends string> = M extends keyof paths[P] ? paths[P][M] : never;
/** The JSON body a route takes. */
export type Body<P extends keyof paths, M extends string = 'post'> = Op<P, M> extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
/** The query a route takes. */
export type Query<P extends keyof paths, M extends string = 'post'> = Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The 200 reply of a route. */
export type Reply<P extends keyof paths, M extends string = 'post'> = Op<P, M> extends { responses: { 200: infer R } } ? Json<R> : never;

export type { TransportOptions as ClientOptions };

/**
 * The account API, route by route.
 *
 * @example
 * const client = new TesseraClient({ baseUrl: 'http://localhost:9000' });
 * const { sessionToken } = await client.accountLogin({ email, authPW });
 * const status = await client.sessionStatus(sessionToken);
 */
export class TesseraClient {
  readonly transport: Transport;

  constructor(options: TransportOptions) {
    this.transport = new Transport(options);
  }

  private post<T>(path: string, body: unknown, query?: object): Promise<T> {
    return this.transport.request<T>({ method: 'POST', path, body, query: query as Record<string, string> | undefined });
  }

  // ---- accounts ----------------------------------------------------------------------------

  /** POST /account/create. */
  accountCreate(body: Body<'/v1/account/create'>, query?: Query<'/v1/account/create'>) {
    return this.post<Reply<'/v1/account/create'>>('/account/create', body, query);
  }

  /** POST /account/login. */
  accountLogin(body: Body<'/v1/account/login'>, query?: Query<'/v1/account/login'>) {
    return this.post<Reply<'/v1/account/login'>>('/account/login', body, query);
  }

  /** GET /account/keys with a keyFetchToken (spends it). */
  accountKeys(keyFetchToken: string) {
    return this.transport.request<Reply<'/v1/account/keys', 'get'>>({ method: 'GET', path: '/account/keys', token: { type: 'keyFetchToken', value: keyFetchToken } });
  }

  /** GET /account/status: with a session token, or anonymously with `uid`. */
  accountStatus(args: { sessionToken: string } | { uid: string }) {
    return this.transport.request<Reply<'/v1/account/status', 'get'>>({
      method: 'GET', path: '/account/status',
      ...('sessionToken' in args ? { token: { type: 'sessionToken', value: args.sessionToken } } : { query: { uid: args.uid } }),
    });
  }

  /** POST /account/status. */
  accountStatusByEmail(body: Body<'/v1/account/status'>) {
    return this.post<Reply<'/v1/account/status'>>('/account/status', body);
  }

  /** POST /account/credentials/status. */
  accountCredentialsStatus(email: string) {
    return this.post<Reply<'/v1/account/credentials/status'>>('/account/credentials/status', { email });
  }

  /** POST /account/destroy (confirmed session). */
  accountDestroy(sessionToken: string, body: Body<'/v1/account/destroy'>) {
    return this.transport.request<Reply<'/v1/account/destroy'>>({ method: 'POST', path: '/account/destroy', body, token: { type: 'sessionToken', value: sessionToken } });
  }

  /** GET /account. */
  account(sessionToken: string) {
    return this.transport.request<Reply<'/v1/account', 'get'>>({ method: 'GET', path: '/account', token: { type: 'sessionToken', value: sessionToken } });
  }

  /** GET /account/profile with a session token or an OAuth access token. */
  accountProfile(auth: { sessionToken: string } | { accessToken: string }) {
    return this.transport.request<Reply<'/v1/account/profile', 'get'>>({
      method: 'GET', path: '/account/profile',
      token: 'sessionToken' in auth ? { type: 'sessionToken', value: auth.sessionToken } : { type: 'oauth', value: auth.accessToken },
    });
  }

  /** POST /account/stub. */
  accountStub(body: Body<'/v1/account/stub'>) {
    return this.post<Reply<'/v1/account/stub'>>('/account/stub', body);
  }

  /** POST /account/set_password with the stub's OAuth access token. */
  accountSetPassword(accessToken: string, body: Body<'/v1/account/set_password'>, query?: Query<'/v1/account/set_password'>) {
    return this.transport.request<Reply<'/v1/account/set_password'>>({ method: 'POST', path: '/account/set_password', body, query, token: { type: 'oauth', value: accessToken } });
  }

  /** POST /account/finish_setup. */
  accountFinishSetup(body: Body<'/v1/account/finish_setup'>) {
    return this.post<Reply<'/v1/account/finish_setup'>>('/account/finish_setup', body);
  }

  /** POST /account/reset with an accountResetToken (spent even if the request fails). */
  accountReset(accountResetToken: string, body: Body<'/v1/account/reset'>, query?: Query<'/v1/account/reset'>) {
    return this.transport.request<Reply<'/v1/account/reset'>>({ method: 'POST', path: '/account/reset', body, query, token: { type: 'accountResetToken', value: accountResetToken } });
  }

  // ---- sessions ----------------------------------------------------------------------------

  /** GET /session/status. */
  sessionStatus(sessionToken: string) {
    return this.transport.request<Reply<'/v1/session/status', 'get'>>({ method: 'GET', path: '/session/status', token: { type: 'sessionToken', value: sessionToken } });
  }

  /** POST /session/destroy. */
  sessionDestroy(sessionToken: string, body: Body<'/v1/session/destroy'> = {}) {
    return this.transport.request<Reply<'/v1/session/destroy'>>({ method: 'POST', path: '/session/destroy', body, token: { type: 'sessionToken', value: sessionToken } });
  }

  /** POST /session/duplicate. */
  sessionDuplicate(sessionToken: string, body: Body<'/v1/session/duplicate'> = {}) {
    return this.transport.request<Reply<'/v1/session/duplicate'>>({ method: 'POST', path: '/session/duplicate', body, token: { type: 'sessionToken', value: sessionToken } });
  }

  /** POST /session/reauth. */
  sessionReauth(sessionToken: string, body: Body<'/v1/session/reauth'>, query?: Query<'/v1/session/reauth'>) {
    return this.transport.request<Reply<'/v1/session/reauth'>>({ method: 'POST', path: '/session/reauth', body, query, token: { type: 'sessionToken', value: sessionToken } });
  }

  /** POST /session/verify_code. */
  sessionVerifyCode(sessionToken: string, body: Body<'/v1/session/verify_code'>) {
    return this.transport.request<Reply<'/v1/session/verify_code'>>({ method: 'POST', path: '/session/verify_code', body, token: { type: 'sessionToken', value: sessionToken } });
  }

  /** POST /session/resend_code. */
  sessionResendCode(sessionToken: string, body: Body<'/v1/session/resend_code'> = {}) {
    return this.transport.request<Reply<'/v1/session/resend_code'>>({ method: 'POST', path: '/session/resend_code', body, token: { type: 'sessionToken', value: sessionToken } });
  }

  // ---- emails ------------------------------------------------------------------------------

  /** GET /recovery_email/status. */
  recoveryEmailStatus(sessionToken: string) {
    return this.transport.request<Reply<'/v1/recovery_email/status', 'get'>>({ method: 'GET', path: '/recovery_email/status', token: { type: 'sessionToken', value: sessionToken } });
  }

  /** POST /recovery_email/verify_code (the code of an emailed link). */
  recoveryEmailVerifyCode(body: Body<'/v1/recovery_email/verify_code'>) {
    return this.post<Reply<'/v1/recovery_email/verify_code'>>('/recovery_email/verify_code', body);
  }

  /** POST /recovery_email/resend_code. */
  recoveryEmailResendCode(sessionToken: string, body: Body<'/v1/recovery_email/resend_code'> = {}) {
    return this.transport.request<Reply<'/v1/recovery_email/resend_code'>>({ method: 'POST', path: '/recovery_email/resend_code', body, token: { type: 'sessionToken', value: sessionToken } });
  }

  // ---- passwords ---------------------------------------------------------------------------

  /** POST /password/change/start (confirmed session). */
  passwordChangeStart(sessionToken: string, body: Body<'/v1/password/change/start'>) {
    return this.transport.request<Reply<'/v1/password/change/start'>>({ method: 'POST', path: '/password/change/start', body, token: { type: 'sessionToken', value: sessionToken } });
  }

  /** POST /password/change/finish with the passwordChangeToken (single use). */
  passwordChangeFinish(passwordChangeToken: string, body: Body<'/v1/password/change/finish'>, query?: Query<'/v1/password/change/finish'>) {
    return this.transport.request<Reply<'/v1/password/change/finish'>>({ method: 'POST', path: '/password/change/finish', body, query, token: { type: 'passwordChangeToken', value: passwordChangeToken } });
  }

  /** POST /password/forgot/send_code. */
  passwordForgotSendCode(body: Body<'/v1/password/forgot/send_code'>, query?: Query<'/v1/password/forgot/send_code'>) {
    return this.post<Reply<'/v1/password/forgot/send_code'>>('/password/forgot/send_code', body, query);
  }

  /** POST /password/forgot/resend_code. */
  passwordForgotResendCode(passwordForgotToken: string, body: Body<'/v1/password/forgot/resend_code'>, query?: Query<'/v1/password/forgot/resend_code'>) {
    return this.transport.request<Reply<'/v1/password/forgot/resend_code'>>({ method: 'POST', path: '/password/forgot/resend_code', body, query, token: { type: 'passwordForgotToken', value: passwordForgotToken } });
  }

  /** GET /password/forgot/status. */
  passwordForgotStatus(passwordForgotToken: string) {
    return this.transport.request<Reply<'/v1/password/forgot/status', 'get'>>({ method: 'GET', path: '/password/forgot/status', token: { type: 'passwordForgotToken', value: passwordForgotToken } });
  }

  /** POST /password/forgot/verify_code. */
  passwordForgotVerifyCode(passwordForgotToken: string, body: Body<'/v1/password/forgot/verify_code'>) {
    return this.transport.request<Reply<'/v1/password/forgot/verify_code'>>({ method: 'POST', path: '/password/forgot/verify_code', body, token: { type: 'passwordForgotToken', value: passwordForgotToken } });
  }

  /** POST /password/forgot/send_otp. */
  passwordForgotSendOtp(body: Body<'/v1/password/forgot/send_otp'>, query?: Query<'/v1/password/forgot/send_otp'>) {
    return this.post<Reply<'/v1/password/forgot/send_otp'>>('/password/forgot/send_otp', body, query);
  }

  /** POST /password/forgot/verify_otp. */
  passwordForgotVerifyOtp(body: Body<'/v1/password/forgot/verify_otp'>) {
    return this.post<Reply<'/v1/password/forgot/verify_otp'>>('/password/forgot/verify_otp', body);
  }

  /** POST /password/create (confirmed session of an account without a password). */
  passwordCreate(sessionToken: string, body: Body<'/v1/password/create'>) {
    return this.transport.request<Reply<'/v1/password/create'>>({ method: 'POST', path: '/password/create', body, token: { type: 'sessionToken', value: sessionToken } });
  }

  // ---- misc --------------------------------------------------------------------------------

  /** POST /get_random_bytes. */
  getRandomBytes() {
    return this.post<Reply<'/v1/get_random_bytes'>>('/get_random_bytes', undefined);
  }

  /** GET /.well-known/public-keys. */
  publicKeys() {
    return this.transport.request<Reply<'/.well-known/public-keys', 'get'>>({ method: 'GET', path: '/.well-known/public-keys' });
  }

  /** GET /.well-known/browserid. */
  browserid() {
    return this.transport.request<Reply<'/.well-known/browserid', 'get'>>({ method: 'GET', path: '/.well-known/browserid' });
  }
}
