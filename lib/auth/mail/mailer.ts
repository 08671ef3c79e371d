/**
 * Mail: the `Mailer` interface the account routes send through, an SMTP transport on nodemailer
 * (the library the field trusts for SMTP; loaded only when used) and a console transport for
 * development that logs each message, link included, instead of sending it.
 */
import { ConfigurationError } from '../../errors.js';
import type { Logger } from '../../http/problem-middleware.js';

/** One message: plain text always, HTML when the template gives it. */
export interface MailMessage {
  /** The recipient's address. */
  readonly to: string;
  /** The subject line. */
  readonly subject: string;
  /** The plain-text body. */
  readonly text: string;
  /** An HTML alternative of the body. */
  readonly html?: string;
}

/** Anything that can deliver a message; it rejects when the message was not accepted for delivery. */
export interface Mailer {
  /** Sends one message. */
  send(message: MailMessage): Promise<void>;
  /** Releases connections, if the transport holds any. */
  close?(): Promise<void>;
}

/** Options of `SmtpMailer`. */
export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…` (nodemailer's connection URL). */
  readonly url: string;
  /** The `From` address of every message. */
  readonly from: string;
}

const NODEMAILER: string = 'nodemailer';

type Transporter = {
  sendMail(message: Record<string, unknown>): Promise<unknown>;
  close(): void;
};

/** Sends through an SMTP server with nodemailer. */
export class SmtpMailer implements Mailer {
  /** The `From` address. */
  readonly from: string;
  private readonly url: string;
  private transporter: Promise<Transporter> | undefined;

  constructor(options: SmtpMailerOptions) {
    if (typeof options.url !== 'string' || !/^smtps?:\/\//i.test(options.url)) {
      throw new ConfigurationError('The SMTP URL must start with smtp:// or smtps://.');
    }
    if (typeof options.from !== 'string' || !options.from.includes('@')) {
      throw new ConfigurationError(`mail_from must be an email address, got ${String(options.from)}.`);
    }
    this.url = options.url;
    this.from = options.from;
  }

  async send(message: MailMessage): Promise<void> {
    this.transporter ??= this.connect();
    const transporter = await this.transporter;
    await transporter.sendMail({
      from: this.from,
      // An address object, never text nodemailer would parse (a display name, a list).
      to: { name: '', address: message.to },
      subject: message.subject,
      text: message.text,
      ...(message.html === undefined ? {} : { html: message.html }),
    });
  }

  async close(): Promise<void> {
    const pending = this.transporter;
    this.transporter = undefined;
    if (pending !== undefined) (await pending).close();
  }

  private async connect(): Promise<Transporter> {
    let module: { default: { createTransport(url: string): Transporter } };
    try {
      // A name in a variable: the transport is typed by its use here, so no declaration package is needed.
      module = (await import(NODEMAILER)) as typeof module;
    } catch {
      throw new ConfigurationError(
        'Sending mail over SMTP needs the `nodemailer` package: npm install nodemailer.',
      );
    }
    return module.default.createTransport(this.url);
  }
}

/** Logs every message instead of sending it: for development, where the link is read from the log. */
export class ConsoleMailer implements Mailer {
  /** Every message sent, newest last (tests and development tools read them). */
  readonly sent: MailMessage[] = [];
  private readonly logger: Logger;

  constructor(logger: Logger) {
    this.logger = logger;
  }

  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
    if (this.sent.length > 100) this.sent.shift();
    this.logger.info(`mail (not sent: no SMTP_URL) to ${message.to}: ${message.subject}\n${message.text}`);
  }
}

let warnedInProduction = false;

/** Options of `defaultMailer`. */
export interface DefaultMailerOptions {
  /** An SMTP URL; else `SMTP_URL` from the environment. */
  readonly smtpUrl?: string | undefined;
  /** The `From` address. */
  readonly from: string;
  /** Where the console transport writes, and the production warning goes. */
  readonly logger: Logger;
  /** The environment (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * SMTP when a URL is configured, otherwise the console transport. In production the console
 * transport would put reset links in the logs, so it warns (once per process).
 */
export function defaultMailer(options: DefaultMailerOptions): Mailer {
  const env = options.env ?? process.env;
  const url = options.smtpUrl ?? env.SMTP_URL;
  if (url !== undefined && url !== '') return new SmtpMailer({ url, from: options.from });
  if (env.NODE_ENV === 'production' && !warnedInProduction) {
    warnedInProduction = true;
    options.logger.warn(
      'mail: no SMTP_URL is configured, so reset and verification links are written to the log instead of being sent.',
    );
  }
  return new ConsoleMailer(options.logger);
}
