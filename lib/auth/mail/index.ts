/** Mail for the account routes: the `Mailer` interface, its SMTP and console transports, and the templates. */
export {
  ConsoleMailer,
  type Mailer,
  type MailMessage,
  SmtpMailer,
  type SmtpMailerOptions,
} from './mailer.js';
export {
  DEFAULT_MAIL_TEMPLATES,
  escapeHtml,
  type LinkMailInput,
  type MailContent,
  type MailTemplates,
} from './templates.js';
