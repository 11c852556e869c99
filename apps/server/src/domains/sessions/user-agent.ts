import type { UserAgentInfo } from './store.js';

// A small classifier for the User-Agent header: enough to name a device in emails and in the list
// of sessions ("Firefox on Windows"). Order matters: Edge and Opera also claim to be Chrome.
const BROWSERS: [string, RegExp][] = [
  ['Edge', /Edg(?:e|A|iOS)?\/([\d.]+)/],
  ['Opera', /OPR\/([\d.]+)/],
  ['Firefox', /(?:Firefox|FxiOS)\/([\d.]+)/],
  ['Chrome', /(?:Chrome|CriOS)\/([\d.]+)/],
  ['Safari', /Version\/([\d.]+).*Safari\//],
];
const OSES: [string, RegExp][] = [
  ['iOS', /(?:iPhone|iPad|iPod).*OS (\d+[_\d]*)/],
  ['Android', /Android ([\d.]+)/],
  ['Windows', /Windows NT ([\d.]+)/],
  ['macOS', /Mac OS X (\d+[_\d]*)/],
  ['Linux', /Linux()/],
];

export function parseUserAgent(header: string | undefined): UserAgentInfo {
  const ua = (header ?? '').slice(0, 512);
  const match = (table: [string, RegExp][]) => {
    for (const [name, re] of table) {
      const m = re.exec(ua);
      if (m) return { name, version: (m[1] ?? '').replace(/_/g, '.') || null };
    }
    return null;
  };
  const browser = match(BROWSERS);
  const os = match(OSES);
  const mobile = /Mobile|iPhone|Android/.test(ua);
  const tablet = /iPad|Tablet/.test(ua);
  return {
    browser: browser?.name ?? null,
    browserVersion: browser?.version ?? null,
    os: os?.name ?? null,
    osVersion: os?.version ?? null,
    deviceType: tablet ? 'tablet' : mobile ? 'mobile' : ua ? 'desktop' : null,
    formFactor: null,
  };
}

export function describeDevice(ua: UserAgentInfo): string {
  if (ua.browser && ua.os) return `${ua.browser} on ${ua.os}`;
  return ua.browser ?? ua.os ?? 'an unknown device';
}
