import { maskDatabaseUrl } from '../storage/database-url.js';

// Start-up failures as one line each, in the configuration errors' style: the variable, its value
// (a URL with the password masked, or a path), what failed and the likely fix. main.ts prints
// `Start-up error: <message>` and exits 1; no stack trace, since every case here is about the
// environment, not a bug.

export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

interface CodedError {
  code?: string;
  errno?: number;
  message?: string;
  cause?: unknown;
  errors?: unknown[];
  hostname?: string;
  address?: string;
  port?: number;
}

/** Every error in the chain: the error, its causes and an AggregateError's members (Node tries IPv6 and IPv4). */
function chain(err: unknown): CodedError[] {
  const out: CodedError[] = [];
  const walk = (e: unknown, depth: number) => {
    if (!e || typeof e !== 'object' || depth > 5) return;
    out.push(e as CodedError);
    const c = e as CodedError;
    if (c.cause) walk(c.cause, depth + 1);
    if (Array.isArray(c.errors)) for (const m of c.errors) walk(m, depth + 1);
  };
  walk(err, 0);
  return out;
}

function findCode(err: unknown, codes: readonly string[]): CodedError | undefined {
  return chain(err).find((e) => e.code !== undefined && codes.includes(e.code));
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200);
}

/** `host:port` of a server DATABASE_URL, with the dialect's default port. */
function endpoint(url: URL, dialect: 'postgres' | 'mysql'): string {
  return `${url.hostname}:${url.port || (dialect === 'postgres' ? 5432 : 3306)}`;
}

/** Why the database could not be opened or migrated, for a DATABASE_URL. */
export function databaseStartupError(err: unknown, databaseUrl: string): StartupError {
  const shown = `DATABASE_URL (${maskDatabaseUrl(databaseUrl)})`;
  const dialect = databaseUrl.startsWith('sqlite:') ? 'sqlite' : /^postgres(ql)?:/.test(databaseUrl) ? 'postgres' : 'mysql';
  const say = (what: string) => new StartupError(`${shown}: ${what}`, { cause: err });
  if (dialect === 'sqlite') {
    const file = databaseUrl.slice('sqlite:'.length);
    if (findCode(err, ['SQLITE_READONLY', 'SQLITE_READONLY_DIRECTORY', 'EACCES', 'EPERM', 'EROFS'])) {
      return say(`the SQLite file ${file} or its folder is read-only: make both writable by this user (SQLite writes ${file}-wal and ${file}-shm beside it) or point DATABASE_URL elsewhere`);
    }
    if (findCode(err, ['SQLITE_CANTOPEN', 'ENOENT', 'ENOTDIR', 'EISDIR'])) {
      return say(`cannot open the SQLite file ${file}: check that the path names a file in a folder that exists and is writable`);
    }
    if (findCode(err, ['SQLITE_NOTADB', 'SQLITE_CORRUPT'])) {
      return say(`${file} is not a SQLite database (or is damaged): point DATABASE_URL at Tessera's database file`);
    }
    return say(`the SQLite database ${file} could not be opened or migrated: ${firstLine(err)}`);
  }
  const url = new URL(databaseUrl);
  const at = endpoint(url, dialect);
  const user = decodeURIComponent(url.username) || '(default user)';
  const database = decodeURIComponent(url.pathname.slice(1));
  if (findCode(err, ['ECONNREFUSED'])) {
    return say(`connection refused at ${at}: is the database server running and listening there? Check the host and port`);
  }
  const dns = findCode(err, ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);
  if (dns) return say(`unknown host "${url.hostname}" (${dns.code}): check the host name`);
  if (findCode(err, ['ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']) || /timeout/i.test(firstLine(err))) {
    return say(`no answer from ${at}: check the host, the port and any firewall between here and the database`);
  }
  // PostgreSQL SQLSTATEs (Appendix A of its manual) and MySQL/MariaDB error names.
  if (findCode(err, ['3D000', 'ER_BAD_DB_ERROR'])) {
    const create = dialect === 'postgres' ? `createdb ${database}` : `CREATE DATABASE ${database}`;
    return say(`database "${database}" does not exist: create it (${create}) or correct the name`);
  }
  if (findCode(err, ['28P01', '28000', 'ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_NOT_SUPPORTED_AUTH_MODE'])) {
    return say(`access denied for user "${user}" to database "${database}": check the user name and password (special characters %-encoded) and that the user may connect to that database from this host`);
  }
  if (findCode(err, ['42501', 'ER_TABLEACCESS_DENIED_ERROR', 'ER_SPECIFIC_ACCESS_DENIED_ERROR'])) {
    return say(`user "${user}" may not create Tessera's tables in "${database}": grant it the rights to create and alter tables there (migrations run on start)`);
  }
  if (findCode(err, ['SASL_SIGNATURE_MISMATCH']) || /password/i.test(firstLine(err))) {
    return say(`the database refused the password of user "${user}": check it (special characters %-encoded)`);
  }
  return say(`the database could not be opened or migrated: ${firstLine(err)}`);
}

/** Why the server could not listen on HOST:PORT. */
export function listenStartupError(err: unknown, host: string, port: number): StartupError | null {
  const at = `${host}:${port}`;
  if (findCode(err, ['EADDRINUSE'])) {
    return new StartupError(`PORT (${port}), HOST (${host}): ${at} is already in use, probably by another Tessera or another server: stop it, or set PORT to a free port`, { cause: err });
  }
  if (findCode(err, ['EACCES', 'EPERM'])) {
    return new StartupError(`PORT (${port}): this user may not listen on ${at} (ports below 1024 need privileges): set PORT to 1024 or above, or put a proxy in front`, { cause: err });
  }
  if (findCode(err, ['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME'])) {
    return new StartupError(`HOST (${host}): not an address of this machine: use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`, { cause: err });
  }
  return null;
}

/** Why SIGNING_KEY_FILE (or the development key in DATA_DIR) could not be used. */
export function signingKeyStartupError(err: unknown, file: string, variable: 'SIGNING_KEY_FILE' | 'DATA_DIR'): StartupError {
  const shown = `${variable} (${file})`;
  const say = (what: string) => new StartupError(`${shown}: ${what}`, { cause: err });
  if (findCode(err, ['ENOENT'])) return say('no such file: check the path (relative paths start at the working directory)');
  if (findCode(err, ['EACCES', 'EPERM'])) return say('this user may not read the file: make it readable by the server\'s user only (chmod 600, chown to that user)');
  if (findCode(err, ['EISDIR'])) return say('this is a folder, not a key file');
  if (findCode(err, ['EROFS'])) return say('the development key cannot be written: the folder is read-only; make DATA_DIR writable or set SIGNING_KEY_FILE');
  return say(`not a usable PEM RSA private key (${firstLine(err)}): make one with \`openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out signing-key.pem\``);
}
