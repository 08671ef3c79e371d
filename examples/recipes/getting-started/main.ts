/** Starts the getting-started API: `node dist/examples/recipes/getting-started/main.js`. */
import type { AddressInfo } from 'node:net';
import { createNotesApp } from './app.js';

const url = process.env.DATABASE_URL ?? 'sqlite:notes.sqlite';
const app = await createNotesApp(url);
const server = await app.run({
  port: Number(process.env.PORT ?? 8000),
  host: process.env.HOST ?? '127.0.0.1',
});
const { address, port } = server.address() as AddressInfo;
console.log(`Notes API on http://${address}:${port} — docs at http://${address}:${port}/docs`);
