/**
 * Test harness for the API suites: builds a real Config from an env object, the real app with
 * optional test-only routes, and a real HTTP server on port 0. Not a test file itself.
 */
import type { Db } from "../../runtime/db/types.js";
import { afterEach } from "vitest";
import { createApiApp } from "../../runtime/api/app.js";
import type { ApiRouteTable } from "../../runtime/api/types.js";
import { routes } from "../../runtime/api/routes.js";
import { startApiServer } from "../../runtime/api/http/server.js";
import type { StatusSource } from "../../runtime/api/types.js";
import { parseConfig } from "../../runtime/config/index.js";
import { createLogger, type Logger } from "../../runtime/internal/logger.js";

export const TOKEN = "tok_correct-horse-battery-staple";

export interface TestApi {
  url: string;
  /** Log records the service wrote, parsed from JSON lines. */
  logs: Record<string, unknown>[];
  get(path: string, init?: RequestInit): Promise<Response>;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

const running: TestApi[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((api) => api.close()));
});

/**
 * The shell's own tests exercise routing, auth and errors only; no route they mount touches the
 * database, so any use of it is a test bug and fails loudly.
 */
export const noDatabase: Db = new Proxy({} as Db, {
  get(_t, prop) {
    throw new Error(`the API shell tests do not use the database (accessed db.${String(prop)})`);
  },
});

export const readyStatus: StatusSource = {
  isReady: () => true,
  getStatus: async () => ({ tip: { block_height: 10, finalized_height: 4 }, lag: 0 }),
};

/** Starts the app on 127.0.0.1:0; `env` is merged over a loopback default with no token. */
export async function startTestApi(
  env: Record<string, string> = {},
  options: { routes?: ApiRouteTable; status?: StatusSource } = {},
): Promise<TestApi> {
  const config = parseConfig({ API_HOST: "127.0.0.1", API_PORT: "0", DATA_DIR: "/tmp/sluice-api-test", ...env });
  const logs: Record<string, unknown>[] = [];
  const logger: Logger = createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) });
  const app = createApiApp({
    config,
    logger,
    db: noDatabase,
    status: options.status ?? readyStatus,
    routes: options.routes ?? routes,
  });
  const server = await startApiServer(app, { host: "127.0.0.1", port: 0, closeGraceMs: 1000 });
  const api: TestApi = {
    url: server.url,
    logs,
    fetch: (path, init) => fetch(`${server.url}${path}`, init),
    get: (path, init) => fetch(`${server.url}${path}`, init),
    close: () => server.close(),
  };
  running.push(api);
  return api;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Env for an API published past loopback (rule 3), with the token set. */
export const PUBLISHED = { API_PUBLISH_ADDR: "0.0.0.0:3800", INSTANCE_TOKEN: TOKEN };

/** The parsed JSON body of a response, typed loosely for assertions. */
export const bodyOf = async (res: Response) => (await res.json()) as Record<string, unknown>;
