export * from './catalogue.js';
export * from './auth.js';
export * from './oauth.js';
export * from './app-error.js';
