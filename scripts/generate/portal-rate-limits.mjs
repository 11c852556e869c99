// The rate-limiting rules in force by default and which routes count as which action: the
// portal's rate-limiting page, from the rules each domain manifest declares (customs' own in rules.ts) and the
// routes' `config.rateLimit` (as the OpenAPI document's `x-rate-limit` states it).
import { composeDeclarations, DOMAINS, formatDuration, parseRules } from '@tessera/server/docs';
import { openApiDocument } from './_openapi-document.mjs';
import { cell, code, table, HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-rate-limits';

export async function outputs({ domains } = {}) {
  const rules = parseRules(composeDeclarations(domains ?? DOMAINS).rateLimitRules);
  const ruleRows = rules.map((r) => [code(r.action), code(r.property), String(r.max), formatDuration(r.windowMs), formatDuration(r.durationMs), code(r.policy)]);

  const doc = await openApiDocument(domains);
  const routeRows = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const limit = op['x-rate-limit'];
      if (!limit || (!limit.actions.length && !limit.failures && !limit.byField)) continue;
      const failures = Object.entries(limit.failures ?? {}).map(([error, action]) => `${code(error)} → ${code(action)}`).join(', ');
      // Actions chosen by a body field: `action: password` → mfaOtpCodeRequestForPassword.
      const byField = Object.entries(limit.byField?.actions ?? {}).map(([value, action]) => `${code(action)} (${limit.byField.field} ${code(value)})`);
      routeRows.push([
        code(`${method.toUpperCase()} ${path}`), [...limit.actions.map(code), ...byField].join(', '), failures || '—', limit.unblockable ? 'yes (400/125)' : '—',
      ]);
    }
  }
  routeRows.sort((a, b) => a[0].localeCompare(b[0]));

  const content = HEADER('the rules each domain manifest declares (customs: the protocol\'s set) and the routes\' config.rateLimit') +
    `### Default rules\n\n${rules.length} rules. Set \`RATE_LIMIT_RULES_FILE\` to replace them, \`RATE_LIMIT_RULES\` to change some.\n\n` +
    table(['Action', 'Property', 'Max attempts', 'Window', 'Duration', 'Policy'], ruleRows) + '\n\n' +
    `### Which route counts as which action\n\n` +
    `Every API route is also counted under the \`default\` rules as its own endpoint action (\`POST__v1_account_login\`, …). ` +
    `These routes count as named actions as well (checked after the request is validated), and count failures when they answer with the errors listed.\n\n` +
    table(['Route', 'Actions', 'Failures counted', 'Unblock code can lift a block'], routeRows.map((r) => r.map(cell))) + '\n';
  return [{ path: 'apps/portal/docs/_generated/rate-limits.md', content }];
}
