import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/context.js';
import { responses } from '../../http/responses.js';
import type { GeoService } from './service.js';

export const geoRoutes: FastifyPluginAsyncTypebox<{ geo: GeoService }> = async (app, { geo }) => {
  app.get('/geo/eligibility/:feature', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'It answers from where the request comes (the client address\'s country), nothing the account holds.' } },
    schema: {
      tags: ['Locations'], summary: 'Whether a feature is offered where the caller is', operationId: 'geoEligibility',
      description: 'Looks the request\'s address up in the location database (GEOIP_DATABASE_FILE) and answers whether its country is one of those GEO_ELIGIBILITY_RULES lists for the feature. A feature not configured, an address the database does not know, or no database at all: `eligible: false`. `region` is the country found (ISO 3166-1 alpha-2, lower case), null when unknown.',
      params: Type.Object({ feature: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9_-]*$', description: 'The feature\'s name as configured, e.g. `recovery-phone`.' }) }),
      response: responses(Type.Object({
        eligible: Type.Boolean(),
        region: Type.Union([Type.String({ pattern: '^[a-z]{2}$' }), Type.Null()], { description: 'The caller\'s country code (lower case), null when unknown.' }),
      }), [], { auth: true }),
    },
  }, async (req) => geo.eligibility(req.params.feature, contextOf(req).ip));
};
