// English strings every email shares (the layout's brand, footer and code lines) and the SMS text;
// each template's own strings live with it in its domain's emails.ts. Another language is a file
// with the same keys (see render.ts).
// `{name}` placeholders are filled from the message data and HTML-escaped in the HTML part.
export const en = {
  'brand': 'Tessera',
  'footer.why': 'You received this email because of activity on your Tessera account {email}.',
  'footer.whyAddress': 'You received this email because your address, {email}, was given to Tessera for an account.',
  'footer.notYou': 'If this wasn’t you, change your password right away.',
  'code.label': 'Your code',
  'code.expires': 'This code expires in {minutes} minutes.',
  'code.expiresOne': 'This code expires in 1 minute.',

  'sms.recoveryPhoneCode': '{code} is your Tessera verification code. It expires in {minutes} minutes. Never share it: Tessera will not ask for it.',
} as const;

export type MessageKey = keyof typeof en;
