export * from './catalogue.js';
export * from './auth.js';
export * from './app-error.js';
