/**
 * The system under attack: the example blog (createBlogApp) on a fresh database of one target,
 * served in-process on a loopback port, with a few known users, their tokens and records. Every
 * response that passes through `send` is recorded, so the invariants can look at all of them.
 */
import { createBlogApp } from '../../../examples/blog/app.js';
import { User } from '../../../examples/blog/entities.js';
import type { Logger } from '../../../lib/index.js';
import { createTestDatabase, type DatabaseTarget, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { type HttpRequest, type HttpResponse, objectOf, send } from './client.js';
import { now } from './forge.js';

/** The HS256 secret the attacked app is configured with. */
export const SECRET = 'security-suite-secret-of-more-than-32-bytes-0123456789';
/** The issuer and audience the auth plugin writes and requires by default. */
export const ISSUER = 'koa-model-api';
/** The first admin, created by ensure_admin at start. */
export const ADMIN = {
  username: 'root_admin',
  password: 'root admin password 1',
  email: 'root@example.com',
} as const;
/** The password of every user the world makes. */
export const PASSWORD = 'correct horse battery';

/** A user of the world with a valid token. */
export interface Actor {
  readonly id: number;
  readonly username: string;
  readonly password: string;
  readonly token: string;
}

/** A logger that keeps lines (the suite asserts nothing secret is logged to the console). */
export interface MemoryLogger extends Logger {
  readonly lines: string[];
}

function memoryLogger(): MemoryLogger {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => void lines.push(`info ${message}`),
    warn: (message) => void lines.push(`warn ${message}`),
    error: (message, error) =>
      void lines.push(`error ${message} ${error instanceof Error ? error.stack : String(error)}`),
  };
}

/** The attacked application and what the cases know about it. */
export class World {
  readonly responses: HttpResponse[] = [];
  readonly logger: MemoryLogger;
  private readonly extra = new Map<string, Promise<Actor>>();
  private storedPassword: Promise<string> | undefined;

  private constructor(
    readonly target: DatabaseTarget,
    readonly database: TestDatabase,
    readonly blog: Awaited<ReturnType<typeof createBlogApp>>,
    readonly server: TestServer,
    logger: MemoryLogger,
    readonly admin: Actor,
    readonly alice: Actor,
    readonly bob: Actor,
    readonly alicePost: number,
    readonly bobPost: number,
    readonly category: number,
  ) {
    this.logger = logger;
  }

  /** Starts the example on a fresh database of `target` and makes the known users and records. */
  static async start(target: DatabaseTarget): Promise<World> {
    const database = await createTestDatabase(target);
    const logger = memoryLogger();
    const blog = await createBlogApp(
      {
        host: '127.0.0.1',
        port: 0,
        databaseUrl: database.url,
        jwtSecret: SECRET,
        admin: { ...ADMIN },
        production: false,
      },
      logger,
    );
    const server = await serve(blog.app.callback());
    try {
      return await World.populate(target, database, blog, server, logger);
    } catch (error) {
      await server.close();
      await blog.app.close();
      await database.drop();
      throw error;
    }
  }

  private static async populate(
    target: DatabaseTarget,
    database: TestDatabase,
    blog: Awaited<ReturnType<typeof createBlogApp>>,
    server: TestServer,
    logger: MemoryLogger,
  ): Promise<World> {
    const recorded: HttpResponse[] = [];
    const call = async (request: HttpRequest): Promise<HttpResponse> => {
      const response = await send(server.url, request);
      recorded.push(response);
      return response;
    };
    const register = async (username: string): Promise<Actor> => {
      const created = await call({
        method: 'POST',
        path: '/register',
        json: { username, email: `${username}@example.com`, password: PASSWORD },
      });
      if (created.status !== 201)
        throw new Error(`setup: register ${username} → ${created.status} ${created.text}`);
      return login(username, PASSWORD, Number(objectOf(created).id));
    };
    const login = async (username: string, password: string, id: number): Promise<Actor> => {
      const response = await call({ method: 'POST', path: '/login', json: { username, password } });
      if (response.status !== 200)
        throw new Error(`setup: login ${username} → ${response.status} ${response.text}`);
      return { id, username, password, token: String(objectOf(response).access_token) };
    };
    const adminRow = await blog.adapter.findBy(blog.adapter.openSession(), User, 'username', ADMIN.username);
    const [admin, alice, bob] = await Promise.all([
      login(ADMIN.username, ADMIN.password, Number(adminRow?.id)),
      register('alice'),
      register('bob'),
    ]);
    const post = async (actor: Actor, title: string): Promise<number> => {
      const response = await call({
        method: 'POST',
        path: '/posts',
        headers: { authorization: `Bearer ${actor.token}` },
        json: { title },
      });
      if (response.status !== 201) throw new Error(`setup: post → ${response.status} ${response.text}`);
      return Number(objectOf(response).id);
    };
    const category = await call({ method: 'POST', path: '/categories', json: { name: 'general' } });
    const world = new World(
      target,
      database,
      blog,
      server,
      logger,
      admin,
      alice,
      bob,
      await post(alice, "Alice's post"),
      await post(bob, "Bob's post"),
      Number(objectOf(category).id),
    );
    world.responses.push(...recorded);
    return world;
  }

  /** Sends a request to the app and records the response. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    const response = await send(this.server.url, request);
    this.responses.push(response);
    return response;
  }

  /** `Authorization: Bearer <token>` of an actor. */
  bearer(actor: Actor): Record<string, string> {
    return { authorization: `Bearer ${actor.token}` };
  }

  /** Claims exactly like the app issues them, for `sub`, lasting `lifetime` seconds. */
  claims(sub: string | number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const iat = now();
    return { sub: String(sub), iat, exp: iat + 600, iss: ISSUER, aud: ISSUER, ...overrides };
  }

  /**
   * A further user, made once per label straight in the database (with the hash of `PASSWORD`
   * computed once), with a token issued by the app's own token service.
   */
  user(label: string): Promise<Actor> {
    let pending = this.extra.get(label);
    if (pending === undefined) {
      pending = this.makeUser(label);
      this.extra.set(label, pending);
    }
    return pending;
  }

  private async makeUser(label: string): Promise<Actor> {
    this.storedPassword ??= this.blog.auth.passwords.hash(PASSWORD);
    const username = `u_${label}`;
    const row = await this.blog.adapter.create(this.blog.adapter.openSession(), User, {
      username,
      email: `${username}@example.com`,
      hashed_password: await this.storedPassword,
    });
    const id = Number(row.id);
    return { id, username, password: PASSWORD, token: this.blog.auth.tokens.issue(String(id)).access_token };
  }

  private execute<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.blog.adapter.orm.em.getConnection().execute(sql, params, 'all') as Promise<T[]>;
  }

  /** Ids of the users holding the admin flag, read with SQL (not through the framework). */
  async admins(): Promise<Set<number>> {
    const rows = await this.execute<{ id: number }>('select id from users where is_admin');
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** The stored row of a user, read with SQL. */
  async userRow(id: number): Promise<Record<string, unknown> | undefined> {
    const rows = await this.execute<Record<string, unknown>>('select * from users where id = ?', [id]);
    return rows[0];
  }

  /** The stored row of a post, read with SQL. */
  async postRow(id: number): Promise<Record<string, unknown> | undefined> {
    const rows = await this.execute<Record<string, unknown>>('select * from posts where id = ?', [id]);
    return rows[0];
  }

  /** Number of users with this username, read with SQL. */
  async countUsers(username: string): Promise<number> {
    const rows = await this.execute<{ n: number | string }>(
      'select count(*) as n from users where username = ?',
      [username],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Stops the server, closes the app and drops the database. */
  async stop(): Promise<void> {
    await this.server.close();
    await this.blog.app.close();
    await this.database.drop();
  }
}
