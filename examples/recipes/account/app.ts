/**
 * The account recipe: password reset and email verification on the auth plugin, mail sent over
 * SMTP when a URL is given (or `SMTP_URL` is set), otherwise written to the log.
 */
import 'reflect-metadata';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { mountAccountRoutes } from '../../../lib/auth/index.js';
import { Application, AuthMixin, AuthRouter, CrudRouter, FrameworkModel } from '../../../lib/index.js';

@Entity()
export class User extends AuthMixin(FrameworkModel) {
  // adds verified and the token columns too
  @PrimaryKey() id!: number;
  @Property({ unique: true }) username!: string;
  @Property({ unique: true }) email!: string;
}

/** Builds the application on `url`; the caller closes it. */
export async function createAccountApp(url: string, smtpUrl = process.env.SMTP_URL) {
  const adapter = await MikroOrmAdapter.connect({ url, entities: [User], schema: 'update' });
  const app = new Application({ title: 'Accounts', adapter });
  const auth = new AuthRouter({ user_model: User });
  auth.register_routes(app);
  new CrudRouter({ model: User, secure: true, auth_dependency: auth.get_auth_dependency() }).register_routes(
    app,
  );
  const account = mountAccountRoutes(app, auth, {
    smtp_url: smtpUrl, // none: the links are written to the log
    mail_from: 'accounts@example.com',
    reset_url: 'https://app.example.com/reset-password', // your page; ?token=… is added
    verify_url: 'https://app.example.com/verify-email',
    reset_token_ttl: 30 * 60, // a reset link works 30 minutes, once
  });
  return { app, auth, account };
}
