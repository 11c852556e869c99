// What a service may know about whoever asked, whatever the transport (REST today, a GraphQL
// gateway or a job later): built once per request by the door (http/context.ts for Fastify), so
// no service imports anything of HTTP.

/** What services may know about the caller, taken from the request once. */
export interface RequestContext {
  ip: string;
  userAgent: string | undefined;
  /** The Accept-Language header (first 255 characters): the account's language for emails. */
  acceptLanguage: string | null;
}

/** Where the user came from, carried into emailed links so the page can send them back. */
export interface FlowContext {
  service?: string | undefined;
  redirectTo?: string | undefined;
  /** Opaque state of the web app that sent the user, carried through into the link (issue 22). */
  resume?: string | undefined;
}

const LANGUAGE_TAG = /^[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*$/;

/**
 * The account's languages from Accept-Language, most preferred first ("fr-CA, fr, en"): only
 * well-formed tags, no wildcard, at most 255 characters. Null when nothing usable was sent.
 */
export function languagesOf(header: string | undefined): string | null {
  if (!header) return null;
  const tags = header.split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = Number(params.find((p) => p.trim().startsWith('q='))?.trim().slice(2) ?? 1);
      return { tag: tag!.trim(), q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((t) => LANGUAGE_TAG.test(t.tag) && t.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((t) => t.tag);
  let out = '';
  for (const tag of tags) {
    const next = out ? `${out}, ${tag}` : tag;
    if (next.length > 255) break;
    out = next;
  }
  return out || null;
}
