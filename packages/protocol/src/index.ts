export * from './bytes.js';
export * from './kdf.js';
export * from './stretch.js';
export * from './tokens.js';
export * from './bundle.js';
export * from './hawk.js';
export * from './password-policy.js';
export * from './recovery-key.js';
