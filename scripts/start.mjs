#!/usr/bin/env node
// `npm start`: compile the TypeScript, build the developer portal once if it is not built yet,
// then run the server (which prints its URLs). Configuration comes from the environment; see
// README "Configuration".
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const step = (label, cmd, args) => {
  process.stdout.write(`› ${label}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

step('compiling TypeScript (tsc -b)', 'npx', ['tsc', '-b']);
const portalDir = process.env.PORTAL_DIR ? resolve(root, process.env.PORTAL_DIR) : join(root, 'apps/portal/build');
if (!process.env.PORTAL_DIR && !existsSync(join(portalDir, 'index.html'))) {
  step('building the developer portal (first start only; `npm run build -w apps/portal` rebuilds it)', 'npm', ['run', 'build', '-w', 'apps/portal']);
}

const server = spawn(process.execPath, [join(root, 'apps/server/dist/main.js')], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
