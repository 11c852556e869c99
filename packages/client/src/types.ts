import type { paths } from './generated/api.js';

// A route's request and reply types, read by path and method from the types openapi-typescript
// writes from the server's OpenAPI document (generated/api.ts): a route schema change shows up as a
// type error at every call. The generated TesseraClient types each method with these.

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Op<P extends keyof paths, M extends string> = M extends keyof paths[P] ? paths[P][M] : never;

/** The JSON body a route takes, e.g. `Body<'/v1/account/login'>`. */
export type Body<P extends keyof paths, M extends string = 'post'> = Op<P, M> extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
/** The query a route takes, e.g. `Query<'/v1/account/status', 'get'>`. */
export type Query<P extends keyof paths, M extends string = 'post'> = Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The 200 reply of a route, e.g. `Reply<'/v1/session/status', 'get'>`. */
export type Reply<P extends keyof paths, M extends string = 'post'> = Op<P, M> extends { responses: { 200: infer R } } ? Json<R> : never;
