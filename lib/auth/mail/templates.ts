/**
 * The messages of the account routes as plain functions: each takes what the message needs and
 * returns its subject and bodies. Pass your own through the `templates` option to change the
 * wording, the language or the HTML.
 */

/** What a template returns: the message without its recipient. */
export interface MailContent {
  /** The subject line. */
  readonly subject: string;
  /** The plain-text body (always sent). */
  readonly text: string;
  /** An HTML alternative. */
  readonly html?: string;
}

/** What the password reset and verification templates receive. */
export interface LinkMailInput {
  /** The link carrying the single-use token. */
  readonly link: string;
  /** The address the message goes to. */
  readonly email: string;
  /** Minutes until the link expires (whole minutes, at least 1). */
  readonly expiresInMinutes: number;
}

/** The templates of the account routes. */
export interface MailTemplates {
  /** The message of `POST /forgot-password`. */
  readonly reset_password: (input: LinkMailInput) => MailContent;
  /** The message of `POST /verify-email/request`. */
  readonly verify_email: (input: LinkMailInput) => MailContent;
}

/** Escapes text for an HTML body or attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The built-in templates (English). */
export const DEFAULT_MAIL_TEMPLATES: MailTemplates = Object.freeze({
  reset_password: ({ link, expiresInMinutes }: LinkMailInput): MailContent => ({
    subject: 'Reset your password',
    text:
      `Someone asked to reset the password of the account with this address.\n\n` +
      `To choose a new password, open this link within ${expiresInMinutes} minutes:\n${link}\n\n` +
      'If it was not you, ignore this message: your password stays as it is.\n',
    html:
      '<p>Someone asked to reset the password of the account with this address.</p>' +
      `<p><a href="${escapeHtml(link)}">Choose a new password</a> (the link works for ${expiresInMinutes} minutes).</p>` +
      '<p>If it was not you, ignore this message: your password stays as it is.</p>',
  }),
  verify_email: ({ link, expiresInMinutes }: LinkMailInput): MailContent => ({
    subject: 'Confirm your email address',
    text: `To confirm that this address is yours, open this link within ${expiresInMinutes} minutes:\n${link}\n`,
    html: `<p><a href="${escapeHtml(link)}">Confirm this email address</a> (the link works for ${expiresInMinutes} minutes).</p>`,
  }),
});
