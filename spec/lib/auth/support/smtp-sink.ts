/**
 * A real SMTP server on loopback for the mail tests (the `smtp-server` library): it accepts every
 * message, keeps it raw, and hands tests the decoded plain text and the link it carries. Nothing
 * is mocked between the application's nodemailer transport and this server.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the server received it. */
export interface ReceivedMail {
  /** Envelope recipients. */
  readonly to: readonly string[];
  /** The raw RFC 5322 message. */
  readonly raw: string;
  /** The message with quoted-printable soft breaks and escapes undone. */
  readonly decoded: string;
  /** The `Subject` header. */
  readonly subject: string;
}

/** The running sink. */
export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every message received, oldest first. */
  readonly messages: ReceivedMail[];
  /** The next message to `to` received after this call (rejects after `timeoutMs`). */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** Messages received so far for `to`. */
  countFor(to: string): number;
  close(): Promise<void>;
}

/** Undoes quoted-printable: soft line breaks and `=XX` escapes. */
function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The `token` query parameter of the first link in a message. */
export function tokenOf(mail: ReceivedMail): string {
  const match = /https?:\/\/[^\s"<>]*[?&]token=([^\s"<>&]+)/.exec(mail.decoded);
  if (match === null) throw new Error(`no link with a token in: ${mail.decoded}`);
  return decodeURIComponent(match[1] as string);
}

/** The full link of the first link with a token in a message. */
export function linkOf(mail: ReceivedMail): string {
  const match = /https?:\/\/[^\s"<>]*[?&]token=[^\s"<>&]+/.exec(mail.decoded);
  if (match === null) throw new Error(`no link in: ${mail.decoded}`);
  return match[0];
}

/** Starts an SMTP server on a random loopback port. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const waiters: { to: string; resolve: (mail: ReceivedMail) => void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase());
        const subject = /^Subject: (.*)$/im.exec(raw)?.[1]?.trim() ?? '';
        const mail: ReceivedMail = { to, raw, decoded: decodeQuotedPrintable(raw), subject };
        messages.push(mail);
        for (let i = waiters.length - 1; i >= 0; i -= 1) {
          const waiter = waiters[i];
          if (waiter !== undefined && to.includes(waiter.to)) {
            waiters.splice(i, 1);
            waiter.resolve(mail);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    next(to, timeoutMs = 10_000) {
      const address = to.toLowerCase();
      return new Promise<ReceivedMail>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          to: address,
          resolve: (mail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        });
      });
    },
    countFor: (to) => messages.filter((mail) => mail.to.includes(to.toLowerCase())).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
