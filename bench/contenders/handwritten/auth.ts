/** JWT issue/verify and the per-request user load of the hand-written app, written the way the jsonwebtoken docs show. */
import type { EntityManager } from '@mikro-orm/core';
import { hash, verify } from '@node-rs/bcrypt';
import jwt from 'jsonwebtoken';
import type { Context } from 'koa';
import { JWT_AUDIENCE, JWT_ISSUER, TOKEN_TTL_SECONDS } from '../shared/env.js';
import { User } from './entities.js';
import { HttpProblem } from './errors.js';

/** The login answer (OAuth2 token response shape). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'bearer';
  readonly expires_in: number;
}

/** Verifies passwords, signs tokens and resolves the caller of a request. */
export class Auth {
  readonly #secret: string;
  // Compared against when the username does not exist, so both paths cost one bcrypt verification.
  readonly #dummyHash: Promise<string>;

  constructor(secret: string) {
    this.#secret = secret;
    this.#dummyHash = hash('not-a-real-password', { cost: 10 });
  }

  /** Checks the credentials and returns a signed token, or throws 401. */
  async login(em: EntityManager, username: unknown, password: unknown): Promise<TokenResponse> {
    if (typeof username !== 'string' || typeof password !== 'string') {
      throw new HttpProblem(422, 'username and password are required strings');
    }
    const user = await em.findOne(User, { username });
    const ok = await verify(password, user?.hashed_password ?? (await this.#dummyHash));
    if (!user || !ok) throw new HttpProblem(401, 'Incorrect username or password');
    const access_token = jwt.sign({ sub: String(user.id) }, this.#secret, {
      algorithm: 'HS256',
      expiresIn: TOKEN_TTL_SECONDS,
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
    });
    return { access_token, token_type: 'bearer', expires_in: TOKEN_TTL_SECONDS };
  }

  /** The user behind the request's Bearer token, reloaded from the database; throws 401 otherwise. */
  async requireUser(ctx: Context, em: EntityManager): Promise<User> {
    const header = ctx.get('Authorization');
    if (!header.startsWith('Bearer ')) throw new HttpProblem(401, 'Missing bearer token');
    let sub: string | undefined;
    try {
      const payload = jwt.verify(header.slice(7), this.#secret, {
        algorithms: ['HS256'],
        issuer: JWT_ISSUER,
        audience: JWT_AUDIENCE,
      });
      if (typeof payload === 'object' && typeof payload.exp === 'number' && typeof payload.sub === 'string') {
        sub = payload.sub;
      }
    } catch {
      sub = undefined;
    }
    const id = sub === undefined ? Number.NaN : Number(sub);
    if (!Number.isInteger(id)) throw new HttpProblem(401, 'Invalid token');
    const user = await em.findOne(User, { id });
    if (!user) throw new HttpProblem(401, 'Invalid token');
    return user;
  }
}
