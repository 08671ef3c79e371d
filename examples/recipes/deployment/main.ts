/** The production entry point: check the configuration, start, and drain on SIGTERM. */
import type { AddressInfo } from 'node:net';
import { readServiceConfig } from './config.js';
import { createService } from './service.js';

try {
  const config = readServiceConfig();
  const service = await createService(config);
  const server = await service.app.listen(config.port, config.host);
  const { port } = server.address() as AddressInfo;
  console.log(`Notes API listening on http://${config.host}:${port}`);

  const stop = (signal: string): void => {
    console.log(`${signal}: draining`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
} catch (error) {
  console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
