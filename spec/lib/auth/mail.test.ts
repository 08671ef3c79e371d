/**
 * The mail transports and the account options: the SMTP transport delivers text and HTML to a
 * real SMTP server on loopback, the console transport logs the link, the default transport
 * follows `smtp_url`/`SMTP_URL` and warns once in production without one, templates are
 * replaceable functions, and bad options fail at start-up.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ACCOUNT_ERRORS } from '../../../lib/auth/account/account-errors.js';
import {
  ACCOUNT_OPTION_NAMES,
  DEFAULT_ACCOUNT_LIMITS,
  resolveAccountOptions,
} from '../../../lib/auth/account/account-options.js';
import { AccountService } from '../../../lib/auth/account/account-service.js';
import { ConsoleMailer, defaultMailer, SmtpMailer } from '../../../lib/auth/mail/mailer.js';
import { DEFAULT_MAIL_TEMPLATES, escapeHtml } from '../../../lib/auth/mail/templates.js';
import type { AuthRuntime } from '../../../lib/auth/runtime.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { repoRoot } from '../../support/paths.js';
import { memoryLogger } from './support/harness.js';
import { linkOf, type SmtpSink, startSmtpSink } from './support/smtp-sink.js';

describe('SmtpMailer', () => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(() => sink?.close());

  it('delivers subject, text and HTML with the From address to a real SMTP server', async () => {
    const mailer = new SmtpMailer({ url: sink.url, from: 'accounts@example.com' });
    try {
      const arrival = sink.next('reader@example.com');
      await mailer.send({
        to: 'reader@example.com',
        subject: 'Hello there',
        text: 'plain body',
        html: '<p>html body</p>',
      });
      const mail = await arrival;
      assert.equal(mail.subject, 'Hello there');
      assert.match(mail.raw, /^From: accounts@example\.com/m);
      assert.match(mail.decoded, /plain body/);
      assert.match(mail.decoded, /<p>html body<\/p>/);
    } finally {
      await mailer.close();
    }
  });

  it('rejects when the server cannot be reached', async () => {
    const mailer = new SmtpMailer({ url: 'smtp://127.0.0.1:1', from: 'a@example.com' });
    await assert.rejects(mailer.send({ to: 'x@example.com', subject: 's', text: 't' }));
    await mailer.close();
  });

  it('refuses a URL that is not smtp(s) and a From without @ at construction', () => {
    assert.throws(
      () => new SmtpMailer({ url: 'http://mail.example.com', from: 'a@example.com' }),
      ConfigurationError,
    );
    assert.throws(() => new SmtpMailer({ url: 'smtp://127.0.0.1:25', from: 'nobody' }), ConfigurationError);
  });
});

describe('defaultMailer', () => {
  it('uses SMTP when smtp_url or SMTP_URL is set, the console otherwise', () => {
    const logger = memoryLogger();
    const from = 'a@example.com';
    assert.ok(
      defaultMailer({ smtpUrl: 'smtp://127.0.0.1:2525', from, logger, env: {} }) instanceof SmtpMailer,
    );
    assert.ok(
      defaultMailer({ from, logger, env: { SMTP_URL: 'smtp://127.0.0.1:2525' } }) instanceof SmtpMailer,
    );
    assert.ok(defaultMailer({ from, logger, env: {} }) instanceof ConsoleMailer);
    assert.equal(logger.lines.length, 0, 'no warning outside production');
  });

  it('warns once per process when production has no SMTP_URL', () => {
    const logger = memoryLogger();
    defaultMailer({ from: 'a@example.com', logger, env: { NODE_ENV: 'production' } });
    defaultMailer({ from: 'a@example.com', logger, env: { NODE_ENV: 'production' } });
    assert.equal(logger.lines.filter((line) => line.startsWith('warn mail:')).length, 1);
  });
});

describe('ConsoleMailer', () => {
  it('logs the message, link included, and keeps it for development tools', async () => {
    const logger = memoryLogger();
    const mailer = new ConsoleMailer(logger);
    await mailer.send({
      to: 'dev@example.com',
      subject: 'Reset',
      text: 'open https://x.example/r?token=abc',
    });
    assert.match(logger.lines.join('\n'), /dev@example\.com.*Reset[\s\S]*token=abc/);
    assert.equal(mailer.sent.length, 1);
  });
});

describe('templates', () => {
  it('are plain functions; a replacement is used and the others stay', async () => {
    const logger = memoryLogger();
    const mailer = new ConsoleMailer(logger);
    const options = resolveAccountOptions(
      {
        mailer,
        reset_url: 'https://app.example.com/reset?lang=fr',
        templates: { reset_password: ({ link }) => ({ subject: 'Mot de passe', text: `Lien : ${link}` }) },
      },
      { logger, env: {} },
    );
    assert.equal(options.templates.verify_email, DEFAULT_MAIL_TEMPLATES.verify_email);
    const service = new AccountService({} as AuthRuntime, options);
    await service.sendLink(
      options.templates.reset_password,
      options.resetUrl,
      '7.secret',
      'fr@example.com',
      1_800_000,
    );
    const sent = mailer.sent[0];
    assert.equal(sent?.subject, 'Mot de passe');
    assert.equal(sent?.text, 'Lien : https://app.example.com/reset?lang=fr&token=7.secret');
    assert.equal(sent?.html, undefined);
  });

  it('put the link in both bodies, escaped in HTML, with the lifetime in minutes', () => {
    const content = DEFAULT_MAIL_TEMPLATES.reset_password({
      link: 'https://a.example/r?x=1&token=t',
      email: 'a@example.com',
      expiresInMinutes: 30,
    });
    assert.match(content.text, /https:\/\/a\.example\/r\?x=1&token=t/);
    assert.match(content.text, /30 minutes/);
    assert.ok(content.html?.includes(escapeHtml('https://a.example/r?x=1&token=t')));
    assert.equal(escapeHtml('<a href="x">\'&'), '&#60;a href=&#34;x&#34;&#62;&#39;&#38;');
    assert.equal(
      linkOf({ to: [], raw: '', subject: '', decoded: 'see https://a.example/r?token=abc.def now' }),
      'https://a.example/r?token=abc.def',
    );
  });
});

describe('account options', () => {
  const logger = memoryLogger();
  const resolve = (options: Record<string, unknown>) =>
    resolveAccountOptions({ mailer: new ConsoleMailer(logger), ...options }, { logger, env: {} });

  it('fill in the defaults: 30-minute resets, one-day verifications, links under PUBLIC_URL', () => {
    const options = resolveAccountOptions(
      { mailer: new ConsoleMailer(logger) },
      { logger, env: { PUBLIC_URL: 'https://shop.example/' } },
    );
    assert.equal(options.resetTokenTtl, 1_800_000);
    assert.equal(options.verifyTokenTtl, 86_400_000);
    assert.equal(options.resetUrl, 'https://shop.example/reset-password');
    assert.equal(options.verifyUrl, 'https://shop.example/verify-email');
    assert.equal(options.requireVerifiedEmail, false);
    assert.equal(options.emailField, 'email');
    assert.equal(options.throttle?.limits.forgot_email.attempts, 3);
  });

  it('accept camelCase aliases', () => {
    const options = resolve({
      resetTokenTtl: 60,
      requireVerifiedEmail: true,
      emailField: 'mail',
      verifyUrl: 'http://localhost/v',
    });
    assert.equal(options.resetTokenTtl, 60_000);
    assert.equal(options.requireVerifiedEmail, true);
    assert.equal(options.emailField, 'mail');
    assert.equal(options.verifyUrl, 'http://localhost/v');
  });

  it('refuse mistakes at start-up with a ConfigurationError', () => {
    for (const bad of [
      { reset_token_ttl: 0 },
      { verify_token_ttl: Number.NaN },
      { reset_url: 'javascript:alert(1)' },
      { verify_url: '/relative' },
      { templates: { reset_password: 'Reset!' } },
      { reset_token_ttl: 10, resetTokenTtl: 20 },
      { throttle: { forgot_email: { attempts: 0, window: 60 } } },
      { email_field: '' },
      { mailer: {} },
    ]) {
      assert.throws(() => resolve(bad), ConfigurationError, JSON.stringify(bad));
    }
  });

  it('turn throttling off with throttle: false', () => {
    assert.equal(resolve({ throttle: false }).throttle, undefined);
  });
});

describe('docs/authentication.md on the account routes', () => {
  const guide = readFileSync(join(repoRoot(), 'docs', 'authentication.md'), 'utf8');

  it('documents every option in its table, each with a camelCase alias', () => {
    const snake = [...ACCOUNT_OPTION_NAMES].filter((name) => !/[A-Z]/.test(name));
    for (const name of snake) {
      assert.match(guide, new RegExp(`^\\| \`${name}\` \\|`, 'm'), name);
      const camel = name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
      assert.ok(ACCOUNT_OPTION_NAMES.has(camel), camel);
    }
  });

  it('states the default limits and every problem code', () => {
    const limits = Object.entries(DEFAULT_ACCOUNT_LIMITS)
      .map(([name, limit]) => `\`${name}\` ${limit.attempts}`)
      .join(', ');
    assert.ok(guide.includes(`| ${limits}, each per 900 s |`), limits);
    for (const limit of Object.values(DEFAULT_ACCOUNT_LIMITS)) assert.equal(limit.window, 900);
    for (const [code, { status }] of Object.entries(ACCOUNT_ERRORS)) {
      assert.match(guide, new RegExp(`${status} \`${code}\``), code);
    }
  });

  it('refuses unknown option names', () => {
    const logger = memoryLogger();
    assert.throws(
      () => resolveAccountOptions({ reset_ttl: 5 } as never, { logger, env: {} }),
      ConfigurationError,
    );
    assert.throws(
      () =>
        resolveAccountOptions({ throttle: { forgot: { attempts: 1, window: 1 } } } as never, {
          logger,
          env: {},
        }),
      ConfigurationError,
    );
  });
});
