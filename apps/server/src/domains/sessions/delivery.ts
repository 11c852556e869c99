// The confirmation a sign-up or sign-in asks for (its `verificationMethod`) reaches the person by
// email either as a code to type or as a link to follow.

/** How a confirmation is delivered: `code` for email-otp / email-2fa / email-captcha, else a link. */
export function deliveryOf(method: string | undefined): 'code' | 'link' {
  return method === 'email-otp' || method === 'email-2fa' || method === 'email-captcha' ? 'code' : 'link';
}
