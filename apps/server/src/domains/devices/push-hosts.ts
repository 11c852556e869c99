// Which push services a device may name as its pushCallback. The server makes requests to that
// URL, so the list is what keeps a device from pointing it at an internal address (SSRF).

export interface PushHost {
  /** Lower-case host name or address; with `wildcard`, the suffix every allowed host ends with. */
  host: string;
  wildcard: boolean;
  /** The only port allowed: 443 unless the entry names one. */
  port: number;
}

const ENTRY = /^(\*\.)?([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;

/** `updates.push.services.mozilla.com,*.push.apple.com,127.0.0.1:8443` → entries; throws on a malformed one. */
export function parsePushHosts(raw: string): PushHost[] {
  return raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean).map((entry) => {
    const m = ENTRY.exec(entry);
    const port = m?.[3] === undefined ? 443 : Number(m[3]);
    if (!m || port < 1 || port > 65535) throw new Error(`"${entry}" is not a host, *.suffix or host:port`);
    return { host: m[2]!, wildcard: m[1] !== undefined, port };
  });
}

/** The outcome of checking a push callback: the URL to store and push to, or why it is refused. */
export type PushCallbackCheck = { href: string; problem: null } | { href: null; problem: string };

/**
 * Checks `callback` as a push endpoint: an https URL without credentials whose host and port an
 * entry of `allowed` matches. The URL is parsed once (WHATWG) and its serialisation is what may be
 * stored and pushed to, so that forms another parser reads differently (`https:///host/x`,
 * percent-encoded or upper-case hosts, dot segments) can never be checked as one host and used as
 * another: the host checked is the host of the URL kept.
 */
export function checkPushCallback(callback: string, allowed: readonly PushHost[]): PushCallbackCheck {
  const refuse = (problem: string): PushCallbackCheck => ({ href: null, problem });
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return refuse('pushCallback must be a URL');
  }
  if (url.protocol !== 'https:') return refuse('pushCallback must be an https URL');
  if (url.username || url.password) return refuse('pushCallback must not carry credentials');
  const host = url.hostname.toLowerCase();
  const port = url.port === '' ? 443 : Number(url.port);
  const ok = allowed.some((a) => a.port === port && (a.wildcard ? host.endsWith(`.${a.host}`) : host === a.host));
  if (!ok) return refuse(`pushCallback must be on an allowed push service host (${allowed.map((a) => `${a.wildcard ? '*.' : ''}${a.host}${a.port === 443 ? '' : `:${a.port}`}`).join(', ')})`);
  if (url.href.length > PUSH_CALLBACK_MAX) return refuse(`pushCallback must be at most ${PUSH_CALLBACK_MAX} characters once normalised`);
  return { href: url.href, problem: null };
}

/** Longest push callback kept, as normalised (the column's size and the documented limit). */
export const PUSH_CALLBACK_MAX = 255;
