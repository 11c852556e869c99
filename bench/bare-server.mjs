#!/usr/bin/env node
// The ceiling: a bare node:http server answering a small JSON document to every request.
// PORT and HOST (default 127.0.0.1) from the environment; prints `listening <port>` when ready.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';

const server = createServer((req, res) => {
  const body = JSON.stringify({ hello: 'world', url: req.url });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 72_000;
server.listen(port, host, () => process.stdout.write(`listening ${server.address().port}\n`));

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
