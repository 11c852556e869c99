/** The header a trusted helpdesk front end sends SUPPORT_SECRET in (redacted from logs). */
export const SUPPORT_SECRET_HEADER = 'tessera-support-secret';
