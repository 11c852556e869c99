// The SDK's route methods (packages/client/src/generated/client.ts), one per operation of the OpenAPI
// document: the method is named by the operationId, takes the token its `security` asks for, then
// its path parameters (strings, URL-encoded into the path), then the JSON body, then the query
// (typed from generated/api.ts), and its JSDoc and the OperationErrors interface list the errors
// its `x-errors` declares.
import { openApiDocument } from './_openapi-document.mjs';

export const name = 'sdk';

const OUTPUT = 'packages/client/src/generated/client.ts';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** The methods Transport sends (RequestSpec['method']). */
const SENDABLE = new Set(['get', 'put', 'post', 'delete']);
const WIDTH = 100;

/**
 * `sessionTokenBearer` and `sessionTokenHawk` name the onepw token kind; `oauthBearer` an access
 * token; a JWT scheme (`mfaTokenBearer`, bearerFormat JWT) a token sent as is, named `mfaToken`.
 */
function tokenKind(doc, scheme) {
  const m = /^(\w+?)(Bearer|Hawk)$/.exec(scheme);
  if (!m) throw new Error(`security scheme ${scheme}: expected <kind>Bearer or <kind>Hawk`);
  if (m[1] === 'oauth') return { param: 'accessToken', type: 'oauth', label: 'an OAuth access token' };
  if (doc.components?.securitySchemes?.[scheme]?.bearerFormat === 'JWT') return { param: m[1], type: 'jwt', label: `an ${m[1]} (JWT)` };
  return { param: m[1], type: m[1], label: `a ${m[1]}` };
}

/** The token kinds an operation accepts (in document order) and whether it also runs without one. */
function authOf(doc, op) {
  const kinds = new Map();
  let optional = false;
  for (const requirement of op.security ?? doc.security ?? []) {
    const schemes = Object.keys(requirement);
    if (schemes.length === 0) optional = true;
    if (schemes.length > 1) throw new Error(`${op.operationId}: a security requirement with several schemes at once is not supported`);
    for (const scheme of schemes) {
      const kind = tokenKind(doc, scheme);
      kinds.set(kind.param, kind);
    }
  }
  return kinds.size ? { kinds: [...kinds.values()], optional } : undefined;
}

function resolve(doc, schema) {
  if (!schema?.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return resolve(doc, doc.components?.schemas?.[name]);
}

/** The parameters of one method, in call order: token, path parameters, body, query. */
function paramsOf(doc, path, method, op) {
  const route = `'${path}', '${method}'`;
  const params = [];
  const auth = authOf(doc, op);
  if (auth?.kinds.length === 1 && !auth.optional) {
    const [k] = auth.kinds;
    params.push({ name: k.param, type: 'string', token: `{ type: '${k.type}', value: ${k.param} }`, example: k.param });
  } else if (auth) {
    const union = auth.kinds.map((k) => `{ ${k.param}: string }`).join(' | ');
    params.push({ name: 'auth', type: union, optional: auth.optional, token: auth.optional ? 'auth && tokenRef(auth)' : 'tokenRef(auth)', example: `{ ${auth.kinds[0].param} }` });
  }
  for (const p of (op.parameters ?? []).filter((x) => x.in === 'path')) {
    if (!/^[A-Za-z_]\w*$/.test(p.name)) throw new Error(`${op.operationId}: path parameter ${p.name} is not an identifier`);
    params.push({ name: p.name, type: 'string', pathParam: true, example: p.name });
  }
  if (op.requestBody) {
    const schema = resolve(doc, op.requestBody.content?.['application/json']?.schema);
    // A body schema this cannot read (anyOf, …) counts as one with required fields.
    const required = schema?.type === 'object' ? schema.required ?? [] : undefined;
    const body = { name: 'body', type: `Body<${route}>`, example: required?.length ? `{ ${required.join(', ')} }` : undefined };
    if (required && required.length === 0) body.initializer = '{}';
    else if (!op.requestBody.required) body.optional = true;
    params.push(body);
  }
  const query = (op.parameters ?? []).filter((p) => p.in === 'query');
  const unsupported = (op.parameters ?? []).filter((p) => p.in !== 'query' && p.in !== 'path');
  if (unsupported.length) throw new Error(`${op.operationId}: ${unsupported[0].in} parameters are not supported yet`);
  if (query.length) {
    const required = query.filter((p) => p.required).map((p) => p.name);
    params.push({ name: 'query', type: `Query<${route}>`, optional: required.length === 0, example: required.length ? `{ ${required.join(', ')} }` : undefined });
  }
  // An optional parameter before a required one takes `undefined` instead (TypeScript's rule).
  let laterRequired = false;
  for (const p of [...params].reverse()) {
    if (p.optional && laterRequired) {
      p.optional = false;
      p.type += ' | undefined';
    }
    if (!p.optional && !p.initializer) laterRequired = true;
  }
  return { params, auth };
}

const renderParam = (p) => `${p.name}${p.optional ? '?' : ''}: ${p.type}${p.initializer ? ` = ${p.initializer}` : ''}`;

/** Words (or the given unbreakable pieces) filled into lines of at most WIDTH characters, each starting with `prefix`. */
function wrap(text, prefix) {
  const lines = [];
  let line = '';
  for (const word of Array.isArray(text) ? text : text.split(/\s+/).filter(Boolean)) {
    if (line && prefix.length + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => `${prefix}${l}`.trimEnd());
}

function authText(auth) {
  if (!auth) return 'No authentication.';
  const labels = auth.kinds.map((k) => k.label);
  const list = labels.length > 1 ? `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}` : labels[0];
  return auth.optional ? `Authenticates with ${list}, or anonymously.` : `Authenticates with ${list}.`;
}

/** `x-errors` by name, once each, in errno order. */
function errorsOf(op) {
  const byName = new Map((op['x-errors'] ?? []).map((e) => [e.name, e]));
  return [...byName.values()].sort((a, b) => a.errno - b.errno || a.name.localeCompare(b.name));
}

const comment = (s) => String(s).replace(/\*\//g, '*\\/');

function renderMethod(doc, path, method, op) {
  const id = op.operationId;
  const { params, auth } = paramsOf(doc, path, method, op);
  const errors = errorsOf(op);
  const ind = '   * ';
  const summary = op.summary ? comment(op.summary).replace(/\.?$/, '.') : id;
  const example = params.map((p) => p.example).filter(Boolean);
  const doclines = [
    ...wrap(summary, ind),
    ...(op.description ? [' *', ...wrap(comment(op.description), ind)] : []),
    ' *',
    ...wrap(`\`${method.toUpperCase()} ${path}\`. ${authText(auth)}`, ind),
    ...(errors.length ? [' *', ...wrap(['@throws', '{TesseraApiError}', ...errors.map((e, i) => `${e.name} (${e.errno})${i < errors.length - 1 ? ',' : ''}`)], ind)] : []),
    ' * @example',
    `${ind}const reply = await client.${id}(${example.join(', ')});`,
  ].map((l) => (l.startsWith('   ') ? l : `  ${l}`));

  const reply = `Promise<Reply<'${path}', '${method}'>>`;
  const oneLine = `  ${id}(${params.map(renderParam).join(', ')}): ${reply} {`;
  const signature = oneLine.length <= WIDTH
    ? [oneLine]
    : [`  ${id}(`, ...params.map((p) => `    ${renderParam(p)},`), `  ): ${reply} {`];

  // Transport puts `/v1` before every path but /.well-known ones.
  const transportPath = path.startsWith('/v1/') ? path.slice(3) : path;
  if (!path.startsWith('/v1/') && !path.startsWith('/.well-known/')) throw new Error(`${id}: ${path} is neither under /v1 nor /.well-known; teach Transport its prefix`);
  const pathParams = new Set(params.filter((p) => p.pathParam).map((p) => p.name));
  const pathExpr = transportPath.includes('{')
    ? `\`${transportPath.replace(/\{(\w+)\}/g, (_, name) => {
      if (!pathParams.has(name)) throw new Error(`${id}: {${name}} in the path is not a declared path parameter`);
      return `\${encodeURIComponent(${name})}`;
    })}\``
    : `'${transportPath}'`;
  const token = params.find((p) => p.token)?.token;
  const oauth = (op['x-errors'] ?? []).some((e) => e.catalogue === 'oauth');
  const fields = [`method: '${method.toUpperCase()}'`, `path: ${pathExpr}`, ...params.filter((p) => !p.token && !p.pathParam).map((p) => p.name), ...(oauth ? [`catalogue: 'oauth'`] : [])];
  const one = `    return this.transport.request({ ${[...fields, ...(token ? [`token: ${token}`] : [])].join(', ')} });`;
  const body = one.length <= WIDTH
    ? [one]
    : ['    return this.transport.request({', `      ${fields.join(', ')},`, ...(token ? [`      token: ${token},`] : []), '    });'];
  return ['  /**', ...doclines, '   */', ...signature, ...body, '  }'].join('\n');
}

export function renderClient(doc) {
  const operations = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) if (item[method]) operations.push({ path, method, op: item[method] });
  }
  const seen = new Set();
  for (const { path, method, op } of operations) {
    if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
    if (!SENDABLE.has(method)) throw new Error(`${op.operationId}: Transport cannot send ${method.toUpperCase()} yet`);
    if (seen.has(op.operationId)) throw new Error(`operationId ${op.operationId} is used twice`);
    seen.add(op.operationId);
  }

  const methods = operations.map(({ path, method, op }) => renderMethod(doc, path, method, op));
  const errorUnions = operations.map(({ op }) => {
    const names = errorsOf(op).map((e) => `'${e.name}'`);
    return names.length ? `  ${op.operationId}:\n${names.map((n) => `    | ${n}`).join('\n')};` : `  ${op.operationId}: never;`;
  });
  const usesTokenRef = methods.some((m) => m.includes('tokenRef('));

  return `// Generated by scripts/generate/sdk.mjs from the server's OpenAPI document. Do not edit.
import type { AuthErrorName, OAuthErrorName } from '@tessera/errors';
import { Transport, ${usesTokenRef ? 'tokenRef, ' : ''}type TransportOptions } from '../transport.js';
import type { Body, Query, Reply } from '../types.js';

/** The error names each operation may answer with (its \`x-errors\`), by operation id. */
export interface OperationErrors {
${errorUnions.join('\n')}
}

/** Fails to compile when an operation lists a name the error catalogue (@tessera/errors) lacks. */
type Catalogued<T extends { [K in keyof T]: AuthErrorName | OAuthErrorName }> = T;

/**
 * The error names operation \`Op\` may answer with.
 *
 * @example
 * catch (err) { if (isTesseraError<ErrorOf<'accountLogin'>>(err, 'INCORRECT_PASSWORD')) … }
 */
export type ErrorOf<Op extends keyof OperationErrors> = Catalogued<OperationErrors>[Op];

/**
 * The account API, one method per operation of the OpenAPI document, named by its operation id.
 * Arguments come in one order: the token when the route takes one (a string named after its kind,
 * or \`auth: { sessionToken } | { accessToken } | …\` when several kinds or none are accepted), then
 * the JSON body, then the query. onepw tokens are the 64-hex token data the server returned; the
 * transport sends them as prefixed Bearer ids or signs with Hawk (the \`presentation\` option). An
 * OAuth access token goes as \`Authorization: Bearer\`.
 *
 * @example
 * const client = new TesseraClient({ baseUrl: 'http://localhost:9000' });
 * const { sessionToken } = await client.accountLogin({ email, authPW });
 * const status = await client.sessionStatus(sessionToken);
 */
export class TesseraClient {
  /** HTTP, token presentation and busy back-off, shared by every method. */
  readonly transport: Transport;

  constructor(options: TransportOptions) {
    this.transport = new Transport(options);
  }

${methods.join('\n\n')}
}
`;
}

export async function outputs() {
  return [{ path: OUTPUT, content: renderClient(await openApiDocument()) }];
}
