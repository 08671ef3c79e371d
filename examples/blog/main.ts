/** `npm start`: serves the example blog on HOST:PORT (default http://127.0.0.1:8000) with /docs. */
import type { AddressInfo } from 'node:net';
import { consoleLogger } from '../../lib/index.js';
import { createBlogApp } from './app.js';
import { readBlogConfig } from './config.js';

try {
  const config = readBlogConfig();
  const { app } = await createBlogApp(config);
  const server = await app.run({ port: config.port, host: config.host });
  const { port } = server.address() as AddressInfo;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  consoleLogger.info(`Blog API listening on ${base} — docs at ${base}/docs`);
} catch (error) {
  consoleLogger.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
