import { Ajv2019 as Ajv } from 'ajv/dist/2019.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fastJsonStringify from 'fast-json-stringify';
import { appError, type AppError } from '@tessera/errors';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { emailAddressProblem, isValidEmailAddress } from '../email-address.js';

// Two validators: request bodies are JSON and are checked as sent (no coercion, unknown fields
// refused); query strings and path params are text, so "true" and "5" are coerced to their types.
// JSON Schema 2019-09, so that `dependentRequired` (flowId needs flowBeginTime) is enforced.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    // Errors carry the value and its schema, so an address's error can name the rule it breaks.
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  ajv.addFormat('email-address', { type: 'string', validate: isValidEmailAddress });
  return ajv;
}

/**
 * Installs the two validators and the serializer; `shared` are the schemas routes reference by
 * `$id` (the OpenAPI document's named components).
 */
export function installValidators(app: FastifyInstance, shared: TSchema[]): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  for (const schema of shared) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
    app.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(schema) as ValidateFunction;
  });
  // Fastify's serializer would get the shared schemas as they are, and fast-json-stringify checks
  // each one's `pattern` as a regular expression without the `u` flag, which the email address's
  // needs (\u{10ffff}). It writes values and never checks them: it gets them without their pattern.
  const shapes: Record<string, unknown> = Object.fromEntries(shared.map(({ pattern: _pattern, ...shape }) => [shape.$id!, shape]));
  const options = { schema: shapes as Record<string, fastJsonStringify.Schema> };
  app.setSerializerCompiler(({ schema }) => fastJsonStringify(schema as fastJsonStringify.AnySchema, options));
  // Turn the first schema violation into the catalogue error instead of Fastify's 400.
  app.setSchemaErrorFormatter((errors, dataVar) => validationError(errors as ErrorObject[], dataVar));
}

const SOURCES: Record<string, 'payload' | 'query' | 'params' | 'headers'> = {
  body: 'payload',
  querystring: 'query',
  params: 'params',
  headers: 'headers',
};

function fieldPath(error: ErrorObject | FastifySchemaValidationError): string {
  const pointer = (error as ErrorObject).instancePath ?? '';
  const parts = pointer.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return parts.join('.');
}

/** Maps an ajv error to 108 (missing field, with `param`) or 107 (any other rule, with `validation`). */
export function validationError(errors: ErrorObject[], dataVar: string): AppError {
  const error = errors[0]!;
  const source = SOURCES[dataVar] ?? 'payload';
  const where = source === 'payload' ? 'request body' : `request ${source}`;
  const parent = fieldPath(error);
  if (error.keyword === 'required' || error.keyword === 'dependentRequired') {
    const missing = String((error.params as { missingProperty?: string }).missingProperty);
    const param = parent ? `${parent}.${missing}` : missing;
    if (error.keyword === 'required' && source === 'payload') {
      return appError('MISSING_PARAMETER', { param }, `Missing parameter in request body: ${param}`);
    }
    const rule = error.keyword;
    const message = error.keyword === 'dependentRequired'
      ? `${param} is required when ${(error.params as { property?: string }).property} is present`
      : `${param} is required`;
    return appError('INVALID_PARAMETER', { validation: { source, keys: [param], rule, message } }, `Invalid parameter in ${where}: ${message}`);
  }
  let field = parent;
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty?: string }).additionalProperty);
    field = parent ? `${parent}.${extra}` : extra;
    const message = `${field} is not allowed`;
    return appError('INVALID_PARAMETER', { validation: { source, keys: [field], rule: 'additionalProperties', message } }, `Invalid parameter in ${where}: ${message}`);
  }
  const subject = field || (source === 'payload' ? 'body' : source);
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  // An address (any rule of its schema: length, pattern, format): the grammar as a regular
  // expression helps nobody, so the message names the rule the address breaks.
  const isAddress = (error.parentSchema as { format?: string } | undefined)?.format === 'email-address' && typeof error.data === 'string';
  const message = error.keyword === 'enum' && allowed
    ? `${subject} must be one of: ${allowed.join(', ')}`
    : isAddress
      ? `${subject} must be one email address like name@example.com: ${emailAddressProblem(error.data as string) ?? 'it breaks the address grammar'}`
      : `${subject} ${error.message ?? 'is invalid'}`;
  return appError(
    'INVALID_PARAMETER',
    { validation: { source, keys: field ? [field] : [], rule: error.keyword, message } },
    `Invalid parameter in ${where}: ${message}`,
  );
}
