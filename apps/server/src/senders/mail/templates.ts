import type { MailContent, Translate } from './render.js';

// What an email template is. Each domain declares the emails it sends in its own folder (emails.ts,
// listed in its manifest's `emails`) and adds them to TemplateRegistry, so `mailer.send(name, …)`
// checks the data of the template it names. The portal's emails page lists the composition.

export interface Template<D> {
  /** When the server sends it; shown on the reference page. */
  sentWhen: string;
  content(t: Translate, d: D): MailContent;
  /** X-Tessera-* headers for automation. */
  headers(d: D): Record<string, string>;
  /** The one-time code in the message, if any. */
  code?(d: D): string;
  /**
   * The template's own strings, by locale then key (`en` is required); the strings every email
   * shares (footer, code, brand) are in locales/.
   */
  strings?: Record<string, Record<string, string>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTemplate = Template<any>;

/** Declares a template (a domain's manifest lists them under `emails`). */
export const defineTemplate = <D>(t: Template<D>): Template<D> => t;

export interface LinkData { link: string }
export interface CodeData { code: string; minutes: number }
export interface DeviceData { device: string }
export interface TimeData { time: string }
/** A recovery phone number, masked (`+1••••••0123`). */
export interface PhoneData { phone: string }
/** The protected actions of an MFA step-up code (protocol.md §4.10). */
export type MfaActionName = '2fa' | 'email' | 'recovery_key' | 'password' | 'passkey';

/**
 * Every template by name, for the types: each domain adds its own from its folder
 * (`declare module '../../senders/mail/templates.js'`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface TemplateRegistry {}

export type TemplateName = keyof TemplateRegistry & string;
export type TemplateData<N extends TemplateName> = TemplateRegistry[N] extends Template<infer D> ? D : never;
