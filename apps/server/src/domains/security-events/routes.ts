import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialsOf } from '../../http/auth.js';
import { responses } from '../../http/responses.js';
import { Location, StringEnum } from '../../http/schemas.js';
import type { SecurityEventsService } from './service.js';

// GET /securityEvents: what happened to the account, for its owner.

const securityEvent = (names: string[]) => Type.Object({
  name: StringEnum(names, { description: 'What happened; the security events page of the portal explains each name. Later features add names.' }),
  verified: Type.Boolean({ description: 'Whether it came from a confirmed session, or itself proved the mailbox or the password (false for a failed sign-in or a sign-in still waiting for confirmation).' }),
  createdAt: Type.Integer({ description: 'When, in milliseconds since the epoch.' }),
  ipNetwork: Type.Optional(Type.String({ maxLength: 64, description: 'The network the request came from, in CIDR notation: an IPv4 /24 or an IPv6 /48. The full address is not kept.' })),
  additionalInfo: Type.Optional(Type.Unsafe<Record<string, string>>({
    type: 'object', additionalProperties: { type: 'string' },
    description: 'Details of some events, such as how a confirmation came (`method`); see the security events page.',
  })),
  location: Type.Optional(Location),
});

export const securityEventRoutes: FastifyPluginAsyncTypebox<{ events: SecurityEventsService; names: string[] }> = async (app, { events, names }) => {
  const SecurityEvent = securityEvent(names);
  app.get('/securityEvents', {
    config: { auth: 'sessionTokenVerified' },
    schema: {
      tags: ['Account'], summary: 'The account\'s security events',
      description: 'Sign-ins, failed sign-ins, confirmations, password changes and resets, sign-outs: what happened to the account, newest first. Events are kept `SECURITY_EVENTS_RETENTION_DAYS` (90 days) and at most `SECURITY_EVENTS_MAX_PER_NAME` of each name; each keeps the network of the request (IPv4 /24, IPv6 /48), never the full address. Needs a confirmed session (an unconfirmed one gets 400/138).',
      response: responses(Type.Array(SecurityEvent), ['SESSION_UNVERIFIED'], { input: false, auth: true }),
    },
  }, async (req) => events.list(credentialsOf(req, 'sessionTokenVerified').uid));
};
