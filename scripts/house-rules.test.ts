import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Two house rules, checked on every tracked file so that a breach names itself here instead of in
// review: no hand-written source file over 400 lines (tests, bench and scripts included), and no
// route handler over 10 lines (a handler reads the request, calls the service, shapes the reply;
// anything longer is logic that belongs in the service).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_FILE_LINES = 400;
const MAX_HANDLER_LINES = 10;

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
/** Written by a generator or a build, not by hand: their length is the generator's business. */
const GENERATED = [/^packages\/client\/src\/generated\//, /^apps\/portal\/docs\/_generated\//, /\.d\.[cm]?ts$/, /(?:^|\/)(?:dist|build)\//];

function trackedSources(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
  return files.filter((f) => SOURCE.test(f) && !GENERATED.some((g) => g.test(f)));
}

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'delete', 'patch', 'head', 'options', 'all']);
/** The operation helper (http/operation.ts) declares a handler once for all of an operation's doors. */
const OPERATION_CALLS = new Set(['defineOperation', 'operation']);

type Handler = { at: string; lines: number };

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

function isFunction(node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node);
}

/** What a route object (`handler`) and an operation (`handle`, http/operation.ts) call their handler. */
const HANDLER_KEYS = new Set(['handler', 'handle']);

/** The handler members of an object literal (and of the object literals nested in it). */
function handlerProperties(node: ts.Node, found: ts.Node[] = []): ts.Node[] {
  if (ts.isPropertyAssignment(node) && HANDLER_KEYS.has(node.name.getText()) && isFunction(node.initializer)) found.push(node.initializer);
  else if (ts.isMethodDeclaration(node) && HANDLER_KEYS.has(node.name.getText())) found.push(node);
  ts.forEachChild(node, (child) => { handlerProperties(child, found); });
  return found;
}

/** A block body counts the lines between its braces; an expression body counts the lines it spans. */
function bodyLines(fn: ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration, file: ts.SourceFile): number {
  const body = fn.body;
  if (!body) return 0;
  const first = file.getLineAndCharacterOfPosition(body.getStart(file)).line;
  const last = file.getLineAndCharacterOfPosition(body.getEnd()).line;
  if (!ts.isBlock(body) || first === last) return last - first + 1;
  return last - first - 1;
}

/**
 * The route handlers of one file: the function passed last to `app.get(...)`, `server.post(...)`
 * and the like, the `handler` of `app.route({...})`, and the `handle` (or `handler`) of an operation
 * declared with operation()/defineOperation() (http/operation.ts).
 */
export function routeHandlers(path: string, text: string): Handler[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const handlers: Handler[] = [];
  const record = (fn: ts.Node) => {
    if (!isFunction(fn)) return;
    const line = file.getLineAndCharacterOfPosition(fn.getStart(file)).line + 1;
    handlers.push({ at: `${path}:${line}`, lines: bodyLines(fn, file) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      const last = node.arguments[node.arguments.length - 1];
      if (name && ts.isPropertyAccessExpression(node.expression) && ROUTE_METHODS.has(name) && node.arguments.length >= 2 && last && isFunction(last)) {
        record(last);
      } else if (name === 'route' && ts.isPropertyAccessExpression(node.expression) && last && ts.isObjectLiteralExpression(last)) {
        handlerProperties(last).forEach(record);
      } else if (name && OPERATION_CALLS.has(name)) {
        for (const arg of node.arguments) if (ts.isObjectLiteralExpression(arg)) handlerProperties(arg).forEach(record);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return handlers;
}

describe('house rules', () => {
  const sources = trackedSources();

  it(`no hand-written source file has more than ${MAX_FILE_LINES} lines`, () => {
    const long = sources
      .map((f) => ({ f, lines: lineCount(readFileSync(join(root, f), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ f, lines }) => `${f}:1 has ${lines} lines`);
    if (long.length) console.log(`files over ${MAX_FILE_LINES} lines:\n  ${long.join('\n  ')}`);
    expect(long).toEqual([]);
  });

  it(`no route handler in apps/server/src has more than ${MAX_HANDLER_LINES} lines`, () => {
    const long = sources
      .filter((f) => f.startsWith('apps/server/src/') && /\.ts$/.test(f) && !f.endsWith('.test.ts'))
      .flatMap((f) => routeHandlers(f, readFileSync(join(root, f), 'utf8')))
      .filter((h) => h.lines > MAX_HANDLER_LINES)
      .map((h) => `${h.at} has ${h.lines} lines`);
    if (long.length) console.log(`route handlers over ${MAX_HANDLER_LINES} lines:\n  ${long.join('\n  ')}`);
    expect(long).toEqual([]);
  });

  it('finds the handlers it is meant to find', () => {
    const sample = [
      "app.get('/a', async () => ({}));",
      "app.post('/b', { schema }, async (req) => {",
      '  const x = 1;',
      '  return x;',
      '});',
      "app.route({ method: 'GET', url: '/c', handler: async () => 1 });",
      "export const op = defineOperation({ input, doors: [], handler(ctx) { return ctx; } });",
      "registerOperation(app, operation({ input, handle: async ({ body }) => {",
      '  const a = body;',
      '  return a;',
      '}, doors: [] }));',
      "map.get('key');",
      "cache.set('k', () => 1);",
    ].join('\n');
    expect(routeHandlers('sample.ts', sample)).toEqual([
      { at: 'sample.ts:1', lines: 1 },
      { at: 'sample.ts:2', lines: 2 },
      { at: 'sample.ts:6', lines: 1 },
      { at: 'sample.ts:7', lines: 1 },
      { at: 'sample.ts:8', lines: 2 },
    ]);
  });
});
