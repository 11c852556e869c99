import { describe, expect, it } from 'vitest';
import { AUTH_ERRORS, appError, authErrorName, catalogueProblems, GENERIC_ERRNO } from './index.js';

describe('auth error catalogue', () => {
  it('has no broken entries and never reuses a number', () => {
    expect(catalogueProblems(AUTH_ERRORS)).toEqual([]);
  });

  it('pins every errno to its name (numbers are frozen: change this table only to add)', () => {
    const pinned = Object.fromEntries(Object.entries(AUTH_ERRORS).map(([n, d]) => [n, `${d.status}/${d.errno}`]));
    expect(pinned).toMatchInlineSnapshot(`
      {
        "ACCOUNT_CREATION_REJECTED": "400/207",
        "ACCOUNT_EXISTS": "400/101",
        "ACCOUNT_RESET": "400/126",
        "ACCOUNT_UNKNOWN": "400/102",
        "ACCOUNT_UNVERIFIED": "400/104",
        "ACTIVE_SUBSCRIPTION_FOR_EMAIL": "400/195",
        "BACKEND_SERVICE_FAILURE": "500/203",
        "BILLING_AGREEMENT_EXISTS": "400/192",
        "BOUNCE_COMPLAINT": "400/133",
        "BOUNCE_HARD": "400/134",
        "BOUNCE_SOFT": "400/135",
        "CANNOT_CREATE_PASSWORD": "400/206",
        "CHANGE_EMAIL_TO_UNOWNED_EMAIL": "400/148",
        "CHANGE_EMAIL_TO_UNVERIFIED_EMAIL": "400/147",
        "DEVICE_COMMAND_UNAVAILABLE": "400/157",
        "DEVICE_CONFLICT": "400/124",
        "DEVICE_UNKNOWN": "400/123",
        "DISABLED_CLIENT_ID": "503/204",
        "EMAIL_DELETE_PRIMARY": "400/137",
        "EMAIL_EXISTS": "400/136",
        "ENDPOINT_NOT_FOUND": "404/999",
        "ENDPOINT_NOT_SUPPORTED": "410/116",
        "EXPIRED_AUTHORIZATION_CODE": "400/174",
        "EXPIRED_TOKEN_VERIFICATION_CODE": "400/153",
        "FAILED_TO_SEND_EMAIL": "422/151",
        "FEATURE_NOT_ENABLED": "503/202",
        "IAP_INTERNAL_OTHER": "500/197",
        "IAP_PURCHASE_ALREADY_REGISTERED": "403/208",
        "IAP_UNKNOWN_APPNAME": "404/198",
        "INCORRECT_CLIENT_SECRET": "400/171",
        "INCORRECT_EMAIL_CASE": "400/120",
        "INCORRECT_PASSWORD": "400/103",
        "INCORRECT_REDIRECT_URI": "400/167",
        "INSUFFICIENT_AAL": "400/222",
        "INSUFFICIENT_ACR_VALUES": "400/170",
        "INTERNAL_VALIDATION_ERROR": "500/998",
        "INVALID_EXPIRED_OTP_CODE": "400/183",
        "INVALID_INVOICE_TOKEN": "400/196",
        "INVALID_JSON": "400/106",
        "INVALID_MESSAGE_ID": "400/131",
        "INVALID_MFA_TOKEN": "401/223",
        "INVALID_NONCE": "401/115",
        "INVALID_PARAMETER": "400/107",
        "INVALID_PATCH_LEVEL": "400/100",
        "INVALID_PHONE_NUMBER": "400/129",
        "INVALID_PKCE_CHALLENGE": "400/175",
        "INVALID_PLAN_UPDATE": "400/185",
        "INVALID_PROMOTION_CODE": "400/199",
        "INVALID_REGION": "400/130",
        "INVALID_REQUEST_SIGNATURE": "401/109",
        "INVALID_RESPONSE_TYPE": "400/168",
        "INVALID_SCOPES": "400/163",
        "INVALID_SIGNIN_CODE": "400/146",
        "INVALID_TARGET": "400/224",
        "INVALID_TIMESTAMP": "401/111",
        "INVALID_TOKEN": "401/110",
        "INVALID_TOKEN_VERIFICATION_CODE": "400/152",
        "INVALID_UNBLOCK_CODE": "400/127",
        "INVALID_VERIFICATION_CODE": "400/105",
        "LOGIN_WITH_INVALID_EMAIL": "400/149",
        "LOGIN_WITH_SECONDARY_EMAIL": "400/142",
        "MALFORMED_REQUEST": "400/999",
        "MESSAGE_REJECTED": "500/132",
        "MISMATCH_AUTHORIZATION_CODE": "400/173",
        "MISSING_CONTENT_LENGTH": "411/112",
        "MISSING_PARAMETER": "400/108",
        "MISSING_PAYPAL_BILLING_AGREEMENT": "400/194",
        "MISSING_PAYPAL_PAYMENT_TOKEN": "400/193",
        "MISSING_PKCE_PARAMETERS": "400/169",
        "NOT_PUBLIC_CLIENT": "400/166",
        "PAYMENT_FAILED": "400/186",
        "RECOVERY_CODE_NOT_FOUND": "400/156",
        "RECOVERY_KEY_EXISTS": "400/161",
        "RECOVERY_KEY_INVALID": "400/159",
        "RECOVERY_KEY_NOT_FOUND": "400/158",
        "RECOVERY_PHONE_BACKUP_CODES_REQUIRED": "400/216",
        "RECOVERY_PHONE_NUMBER_ALREADY_EXISTS": "400/214",
        "RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST": "400/215",
        "RECOVERY_PHONE_REGISTRATION_LIMIT_REACHED": "400/217",
        "REDIS_CONFLICT": "409/165",
        "REFRESH_TOKEN_UNKNOWN": "400/182",
        "REJECTED_CUSTOMER_UPDATE": "400/181",
        "REJECTED_SUBSCRIPTION_PAYMENT_TOKEN": "400/179",
        "REQUEST_BLOCKED": "400/125",
        "REQUEST_TOO_LARGE": "413/113",
        "RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL": "400/150",
        "RESET_PASSWORD_WITH_SECONDARY_EMAIL": "400/145",
        "SECONDARY_EMAIL_UNKNOWN": "400/143",
        "SERVER_BUSY": "503/201",
        "SESSION_UNVERIFIED": "400/138",
        "STALE_AUTH_AT": "401/164",
        "SUBSCRIPTION_ALREADY_CANCELLED": "400/180",
        "SUBSCRIPTION_ALREADY_CHANGED": "400/184",
        "SUBSCRIPTION_ALREADY_EXISTS": "409/187",
        "THIRD_PARTY_ACCOUNT_ERROR": "500/205",
        "THROTTLED": "429/114",
        "TOTP_REQUIRED": "400/160",
        "TOTP_TOKEN_EXISTS": "400/154",
        "TOTP_TOKEN_NOT_FOUND": "400/155",
        "UNABLE_TO_LOGIN_NO_PASSWORD_SET": "400/210",
        "UNEXPECTED_ERROR": "500/999",
        "UNKNOWN_AUTHORIZATION_CODE": "400/172",
        "UNKNOWN_CLIENT_ID": "400/162",
        "UNKNOWN_SUBSCRIPTION": "404/177",
        "UNKNOWN_SUBSCRIPTION_CUSTOMER": "404/176",
        "UNKNOWN_SUBSCRIPTION_FOR_SOURCE": "500/188",
        "UNKNOWN_SUBSCRIPTION_PLAN": "400/178",
        "UNSUPPORTED_MEDIA_TYPE": "415/999",
        "UNVERIFIED_PRIMARY_EMAIL_EXISTS": "400/141",
        "USER_PRIMARY_EMAIL_EXISTS": "400/139",
        "VERIFIED_PRIMARY_EMAIL_EXISTS": "400/140",
        "VERIFIED_SECONDARY_EMAIL_EXISTS": "400/144",
      }
    `);
  });

  it('renders the wire body with extras and the Retry-After header in seconds', () => {
    const err = appError('SERVER_BUSY', { retryAfter: 2.2 });
    expect(err.toBody('https://x/info')).toEqual({
      code: 503, errno: 201, error: 'Service Unavailable', message: 'Service unavailable', info: 'https://x/info', retryAfter: 2.2,
    });
    expect(err.headers['retry-after']).toBe('3');
    expect(appError('REQUEST_BLOCKED').error).toBe('Request blocked');
  });

  it('maps a wire errno back to its name, using the status for the generic errno', () => {
    expect(authErrorName(102, 400)).toBe('ACCOUNT_UNKNOWN');
    expect(authErrorName(GENERIC_ERRNO, 404)).toBe('ENDPOINT_NOT_FOUND');
    expect(authErrorName(GENERIC_ERRNO, 500)).toBe('UNEXPECTED_ERROR');
    expect(authErrorName(4242, 400)).toBeUndefined();
  });
});
