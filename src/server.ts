import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './platform/db/client.js';
import { migrateDatabase } from './platform/db/migrate.js';

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  url: string;
  close(): Promise<void>;
}

export function databaseOptions(config: Config) {
  return {
    databaseUrl: config.DATABASE_URL,
    dataDir: `${config.CRM_DATA_DIR}/db`,
    poolSize: config.DATABASE_POOL_SIZE,
  };
}

/** Opens and migrates the database, builds the app and listens. */
export async function startServer(
  config: Config,
  onReady?: (s: RunningServer) => Promise<void>,
): Promise<RunningServer> {
  const db = await openDatabase(databaseOptions(config));
  let app: FastifyInstance | undefined;
  try {
    await migrateDatabase(db);
    app = await buildApp({ config, db });
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    await app?.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = config.PUBLIC_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`;
  const server: RunningServer = {
    app,
    db,
    url,
    // In-flight requests finish (app.close waits for them), then the database closes cleanly.
    close: async () => {
      await app!.close();
      await db.close();
    },
  };
  await onReady?.(server);
  return server;
}
