import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { checkPushCallback, parsePushHosts, type PushHost } from '../../../src/domains/devices/index.js';

/** Why a callback is refused, or null when it may be used. */
const pushCallbackProblem = (callback: string, hosts: readonly PushHost[]) => checkPushCallback(callback, hosts).problem;

describe('allowed push hosts', () => {
  it('defaults to the real push services', () => {
    const hosts = loadConfig({ NODE_ENV: 'test' }).devices.pushAllowedHosts;
    expect(pushCallbackProblem('https://updates.push.services.mozilla.com/wpush/v2/abc', hosts)).toBeNull();
    expect(pushCallbackProblem('https://fcm.googleapis.com/fcm/send/abc', hosts)).toBeNull();
    expect(pushCallbackProblem('https://web.push.apple.com/abc', hosts)).toBeNull();
    expect(pushCallbackProblem('https://wns2-par02p.notify.windows.com/w/?token=abc', hosts)).toBeNull();
    expect(pushCallbackProblem('https://127.0.0.1/abc', hosts)).toMatch(/allowed push service host/);
    expect(pushCallbackProblem('https://push.apple.com.evil.example/abc', hosts)).toMatch(/allowed push service host/);
    expect(pushCallbackProblem('https://evilpush.apple.com/abc', hosts)).toMatch(/allowed/);
    expect(pushCallbackProblem('https://notify.windows.com/abc', hosts)).toMatch(/allowed/);
  });

  it('matches host, *.suffix and port exactly', () => {
    const hosts = parsePushHosts(' Push.Example:8443 , *.svc.example ');
    expect(hosts).toEqual([{ host: 'push.example', wildcard: false, port: 8443 }, { host: 'svc.example', wildcard: true, port: 443 }]);
    expect(pushCallbackProblem('https://push.example:8443/x', hosts)).toBeNull();
    expect(pushCallbackProblem('https://push.example/x', hosts)).toMatch(/allowed/);
    expect(pushCallbackProblem('https://a.svc.example/x', hosts)).toBeNull();
    expect(pushCallbackProblem('https://a.svc.example:444/x', hosts)).toMatch(/allowed/);
    expect(pushCallbackProblem('http://a.svc.example/x', hosts)).toMatch(/https/);
    expect(() => parsePushHosts('https://x.example')).toThrow(/not a host/);
    expect(() => parsePushHosts('x.example:70000')).toThrow(/not a host/);
    expect(() => loadConfig({ NODE_ENV: 'test', PUSH_ALLOWED_HOSTS: 'a b' })).toThrow(/PUSH_ALLOWED_HOSTS/);
  });

  it('checks the URL it normalises, and returns that URL to store and push to (issue 22)', () => {
    const hosts = parsePushHosts('push.example:8443,*.svc.example');
    expect(checkPushCallback('https:///push.example:8443/x', hosts)).toEqual({ href: 'https://push.example:8443/x', problem: null });
    expect(checkPushCallback('https://%70ush.example:8443/x', hosts).href).toBe('https://push.example:8443/x');
    expect(checkPushCallback('https://A.SVC.Example/x/../y', hosts).href).toBe('https://a.svc.example/y');
    expect(checkPushCallback('https://a.svc.example', hosts).href).toBe('https://a.svc.example/');
    // Hosts that only look allowed before parsing stay refused.
    expect(checkPushCallback('https:///evil.example/push.example:8443/x', hosts).problem).toMatch(/allowed/);
    expect(checkPushCallback('https://push.example:8443@evil.example/x', hosts).problem).toMatch(/credentials/);
    expect(checkPushCallback('https://%65vil.example/x', hosts).problem).toMatch(/allowed/);
    // 255 characters sent, more once normalised (a space becomes %20): refused.
    const sent = `https://a.svc.example/ ${'x'.repeat(255 - 'https://a.svc.example/ '.length)}`;
    expect(sent).toHaveLength(255);
    expect(checkPushCallback(sent, hosts).problem).toMatch(/at most 255 characters once normalised/);
  });
});
