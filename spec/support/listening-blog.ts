/** The example blog on SQLite in memory, listening through `Application.listen` on a free loopback port. */
import type { AddressInfo } from 'node:net';
import { createBlogApp } from '../../examples/blog/app.js';
import type { Logger } from '../../lib/index.js';

/** A listening blog: its app (close it with `blog.app.close()`) and port. */
export interface ListeningBlog {
  readonly blog: Awaited<ReturnType<typeof createBlogApp>>;
  readonly port: number;
}

/** Starts the blog with `jwtSecret`, logging to `logger`. */
export async function listenBlog(jwtSecret: string, logger: Logger): Promise<ListeningBlog> {
  const blog = await createBlogApp(
    {
      host: '127.0.0.1',
      port: 0,
      databaseUrl: 'sqlite::memory:',
      jwtSecret,
      admin: undefined,
      production: false,
    },
    logger,
  );
  const server = await blog.app.listen(0, '127.0.0.1');
  return { blog, port: (server.address() as AddressInfo).port };
}
