// English strings for every email. Another language is a file with the same keys (see render.ts).
// `{name}` placeholders are filled from the message data and HTML-escaped in the HTML part.
export const en = {
  'brand': 'Tessera',
  'footer.why': 'You received this email because of activity on your Tessera account {email}.',
  'footer.whyAddress': 'You received this email because your address, {email}, was given to Tessera for an account.',
  'footer.notYou': 'If this wasn’t you, change your password right away.',
  'code.label': 'Your code',
  'code.expires': 'This code expires in {minutes} minutes.',
  'code.expiresOne': 'This code expires in 1 minute.',

  'verify.subject': 'Confirm your email address',
  'verify.heading': 'Confirm your email to finish creating your account',
  'verify.body': 'Confirm that this address is yours to finish creating your Tessera account. If you did not create an account, ignore this email.',
  'verify.action': 'Confirm email',

  'verifyShortCode.subject': 'Your account confirmation code: {code}',
  'verifyShortCode.heading': 'Confirm your email',
  'verifyShortCode.body': 'Enter this code where you created your Tessera account to confirm this address. If you did not create an account, ignore this email.',

  'verifyLogin.subject': 'Confirm your sign-in',
  'verifyLogin.heading': 'Was that you signing in?',
  'verifyLogin.body': 'A new sign-in to your Tessera account from {device} is waiting for your confirmation. Confirm it only if it was you.',
  'verifyLogin.action': 'Confirm sign-in',

  'verifyLoginCode.subject': 'Sign-in code: {code}',
  'verifyLoginCode.heading': 'Confirm your sign-in',
  'verifyLoginCode.body': 'Enter this code to confirm the sign-in to your Tessera account from {device}.',

  'newDeviceLogin.subject': 'New sign-in to your account',
  'newDeviceLogin.heading': 'A new device signed in to your account',
  'newDeviceLogin.body': 'Your Tessera account was signed in from {device} at {time} (UTC). If that was you, there is nothing to do.',

  'passwordForgotOtp.subject': 'Your password reset code: {code}',
  'passwordForgotOtp.heading': 'Reset your password',
  'passwordForgotOtp.body': 'Use this code to reset your password. Anyone with it can reset your password, so don’t share it.',

  'mfaOtp.subject': 'Your security code: {code}',
  'mfaOtp.heading': 'Confirm it’s you',
  'mfaOtp.body': 'Enter this code to confirm that you want to {action} on your Tessera account.',
  'mfaOtp.notYou': 'If you did not ask for it, someone may be signed in to your account: do not share the code, and change your password.',
  'mfaOtp.action.2fa': 'change two-step authentication',
  'mfaOtp.action.email': 'change your email addresses',
  'mfaOtp.action.recovery_key': 'change your account recovery key',
  'mfaOtp.action.password': 'change your password',
  'mfaOtp.action.passkey': 'change your passkeys',

  'recoveryEmail.subject': 'Reset your password',
  'recoveryEmail.heading': 'You asked to reset your password',
  'recoveryEmail.body': 'Open the link to choose a new password, or enter the code where you asked for the reset.',
  'recoveryEmail.bodyCodeOnly': 'Enter this code where you asked for the reset to choose a new password.',
  'recoveryEmail.keys': 'A reset replaces your encryption keys: data that only your old password protected cannot be read any more. If you did not ask for a reset, ignore this email and your password stays as it is.',
  'recoveryEmail.action': 'Reset password',

  'unblockCode.subject': 'Your sign-in unblock code: {code}',
  'unblockCode.heading': 'Unblock your sign-in',
  'unblockCode.body': 'Sign-ins to your account from {device} were paused after too many attempts. If you are signing in, enter this code.',
  'unblockCode.notYou': 'If this is not you, someone may know or be guessing your password: do not share the code, and change your password.',

  'finishSetup.subject': 'Finish setting up your account',
  'finishSetup.heading': 'A Tessera account was created for this address',
  'finishSetup.body': 'Choose a password to finish setting it up. If you did not ask for an account, ignore this email: nothing happens without your password.',
  'finishSetup.action': 'Choose a password',

  'passwordChanged.subject': 'Your password has been changed',
  'passwordChanged.heading': 'Password changed',
  'passwordChanged.body': 'The password of your Tessera account was changed at {time} (UTC). Your other devices were signed out.',

  'passwordReset.subject': 'Your password has been reset',
  'passwordReset.heading': 'Password reset',
  'passwordReset.body': 'The password of your Tessera account was reset at {time} (UTC). All your devices were signed out: sign in again with the new password.',

  'recoveryKeyCreated.subject': 'Account recovery key created',
  'recoveryKeyCreated.heading': 'Recovery key created',
  'recoveryKeyCreated.body': 'A recovery key was created for your Tessera account at {time} (UTC). If you forget your password, it lets you reset it without losing your encrypted data. Any earlier recovery key no longer works.',
  'recoveryKeyCreated.notYou': 'If you did not create it, someone is signed in to your account: change your password and remove the key in your account settings.',

  'recoveryKeyRemoved.subject': 'Account recovery key removed',
  'recoveryKeyRemoved.heading': 'Recovery key removed',
  'recoveryKeyRemoved.body': 'The recovery key of your Tessera account was removed at {time} (UTC). If you forget your password now, resetting it will make your encrypted data unreadable.',
  'recoveryKeyRemoved.notYou': 'If you did not remove it, someone is signed in to your account: change your password and create a new recovery key.',

  'recoveryKeyUsed.subject': 'Your password was reset with your recovery key',
  'recoveryKeyUsed.heading': 'Password reset with recovery key',
  'recoveryKeyUsed.body': 'The password of your Tessera account was reset with its recovery key at {time} (UTC). Your encrypted data was kept. All your devices were signed out: sign in again with the new password.',
  'recoveryKeyUsed.newKey': 'That recovery key is now used up: create a new one in your account settings, and store it somewhere safe.',

  'twoStepEnabled.subject': 'Two-step authentication enabled',
  'twoStepEnabled.heading': 'Two-step authentication enabled',
  'twoStepEnabled.body': 'Two-step authentication was turned on for your Tessera account at {time} (UTC). From now on, signing in also needs a code from your authenticator app or one of your backup codes.',
  'twoStepEnabled.notYou': 'If you did not turn it on, someone is signed in to your account: change your password now.',
  'twoStepReplaced.subject': 'Your authenticator app was replaced',
  'twoStepReplaced.heading': 'Authenticator app replaced',
  'twoStepReplaced.body': 'A new authenticator app was set up for your Tessera account at {time} (UTC). Codes from the previous app no longer work.',
  'twoStepReplaced.notYou': 'If you did not do this, someone is signed in to your account: change your password now.',
  'twoStepDisabled.subject': 'Two-step authentication disabled',
  'twoStepDisabled.heading': 'Two-step authentication disabled',
  'twoStepDisabled.body': 'Two-step authentication was turned off for your Tessera account at {time} (UTC). Signing in now needs only your password (and, sometimes, a code sent by email). Your backup codes no longer work.',
  'twoStepDisabled.notYou': 'If you did not turn it off, someone is signed in to your account: change your password and turn two-step authentication on again.',
  'backupCodesReplaced.subject': 'New backup codes were created',
  'backupCodesReplaced.heading': 'Backup codes replaced',
  'backupCodesReplaced.body': 'New backup authentication codes were created for your Tessera account at {time} (UTC). Your previous codes no longer work.',
  'backupCodesReplaced.notYou': 'If you did not do this, someone is signed in to your account: change your password now.',
  'backupCodeUsed.subject': 'A backup code was used',
  'backupCodeUsed.heading': 'Backup code used',
  'backupCodeUsed.body': 'One of the backup codes of your Tessera account was used at {time} (UTC). Codes left: {remaining}.',
  'backupCodeUsed.low': 'You are running low on backup codes: create new ones in your account settings before you run out.',
  'backupCodeUsed.notYou': 'If you did not use it, someone knows your password and has your codes: change your password and create new backup codes.',

  'accountDeleted.subject': 'Your account has been deleted',
  'accountDeleted.heading': 'Account deleted',
  'accountDeleted.body': 'Your Tessera account and everything stored with it were deleted at {time} (UTC), from a signed-in session that gave the account password. This cannot be undone.',
  'accountDeleted.notYou': 'If you did not delete it, someone knew your password: change it wherever else you use it. This address is free again for a new account.',

  'verifySecondaryCode.subject': 'Your secondary email confirmation code: {code}',
  'verifySecondaryCode.heading': 'Confirm your secondary email',
  'verifySecondaryCode.body': 'The Tessera account {primary} wants to add this address as a secondary email. If that is you, enter this code where you added it. If not, ignore this email: the address is not added without the code.',

  'secondaryEmailAdded.subject': 'A secondary email was added to your account',
  'secondaryEmailAdded.heading': 'Secondary email added',
  'secondaryEmailAdded.body': '{secondary} was added to your Tessera account as a secondary email. It becomes usable once it is confirmed with the code sent to it.',

  'secondaryEmailVerified.subject': 'Your secondary email is confirmed',
  'secondaryEmailVerified.heading': 'Secondary email confirmed',
  'secondaryEmailVerified.body': '{secondary} is now a confirmed secondary email of your Tessera account. It can be made the primary address of the account.',

  'secondaryEmailRemoved.subject': 'A secondary email was removed from your account',
  'secondaryEmailRemoved.heading': 'Secondary email removed',
  'secondaryEmailRemoved.body': '{secondary} is no longer an email of your Tessera account.',

  'primaryEmailChanged.subject': 'Your primary email was changed',
  'primaryEmailChanged.heading': 'Primary email changed',
  'primaryEmailChanged.body': 'The primary email of your Tessera account is now {newPrimary} (it was {oldPrimary}). Sign in and account emails use the new address; the old one stays on the account as a secondary email.',
} as const;

export type MessageKey = keyof typeof en;
