// DATABASE_URL: what is accepted, and how it is shown. Checked when the configuration is read, so
// a URL that would silently open the wrong database is refused before anything connects.

/** The accepted forms, as messages and docs name them. */
export const DATABASE_URL_FORMS = '`sqlite:<path>`, `postgres://` or `postgresql://user:password@host:5432/db`, `mysql://` or `mariadb://user:password@host:3306/db`';

/** The URL with its password replaced by `***` (what logs, the banner and errors show). */
export function maskDatabaseUrl(url: string): string {
  // Works on strings `new URL` refuses too: everything between `//user:` and the last `@` before
  // the host is the password.
  return url.replace(/^([a-z]+:\/\/[^/:@]*:)[^/]*@/i, '$1***@');
}

/**
 * The config parser of DATABASE_URL: returns it unchanged when it names a database, throws with
 * the reason and the accepted forms otherwise. Refused on purpose: `sqlite:` with no path (SQLite
 * opens a temporary database that is lost on exit) and a server URL without a database name
 * (PostgreSQL would connect to the `postgres` maintenance database and migrate into it).
 */
export function parseDatabaseUrl(raw: string): string {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length);
    if (!path.trim()) throw new Error(`"sqlite:" names no file, and an empty path opens a temporary database that is lost on exit: give a path, e.g. sqlite:data/tessera.sqlite`);
    return raw;
  }
  const scheme = /^([a-z]+):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (!scheme || !['postgres', 'postgresql', 'mysql', 'mariadb'].includes(scheme)) {
    throw new Error(`"${maskDatabaseUrl(raw).slice(0, 80)}" is not a database URL: expected ${DATABASE_URL_FORMS}`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${maskDatabaseUrl(raw).slice(0, 80)}" is not a valid URL (check the host, that the port is a number and that special characters in the password are %-encoded): expected ${DATABASE_URL_FORMS}`);
  }
  if (!url.hostname) throw new Error(`"${maskDatabaseUrl(raw)}" names no host: expected ${DATABASE_URL_FORMS}`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) {
    const example = scheme.startsWith('postgres') ? 'postgres://user@host:5432/tessera' : 'mysql://user@host:3306/tessera';
    const why = scheme.startsWith('postgres')
      ? 'PostgreSQL would pick the database named after the user (for `postgres`, the maintenance database) and Tessera would create its tables there'
      : 'MySQL would connect with no database selected';
    throw new Error(`"${maskDatabaseUrl(raw)}" names no database (${why}): add its name after the host, e.g. ${example}`);
  }
  if (database.includes('/')) throw new Error(`"${maskDatabaseUrl(raw)}": the database name cannot contain "/": expected ${DATABASE_URL_FORMS}`);
  return raw;
}
