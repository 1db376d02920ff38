/**
 * A subgraph deployed or deleted through one process is served by every other process on the same
 * PostgreSQL database at once (runtime/subgraphs/index.ts `sync` on the `sluice_subgraphs`
 * notification), without a restart: a service deploys, an `api` service on its own connections
 * answers for the new subgraph, and 404 once it is deleted. PostgreSQL only (two processes share
 * a database only there).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import type { Db } from "../../../runtime/db/types.js";
import type { Service } from "../../../runtime/service.js";
import { type TestDb, TEST_DB_KIND, createTestDb } from "../../support/db.js";
import { startTestService, waitFor } from "../../support/service.js";

const SPEC = `name: shared-deploy
version: 1.0.0
description: STX received per recipient.
sources:
  xfer:
    type: stx_transfer
tables:
  received:
    columns:
      holder:
        type: principal
      amount:
        type: int
    uniqueKeys:
      - [holder]
handlers:
  xfer:
    - increment: received
      key:
        holder: \${event.recipient}
      add:
        amount: \${event.amount}
`;

describe.skipIf(TEST_DB_KIND !== "postgres")("subgraph deploys across processes", () => {
  let testDb: TestDb;
  let otherDb: Db;
  let writer: Service;
  let reader: Service;

  beforeAll(async () => {
    testDb = await createTestDb();
    if (testDb.url === null) throw new Error("PostgreSQL test database without a URL");
    writer = await startTestService(testDb.db, { NETWORK: "devnet" });
    otherDb = await createPostgresDb(testDb.url);
    reader = await startTestService(otherDb, { NETWORK: "devnet", ROLE: "api", DATABASE_URL: testDb.url });
  });
  afterAll(async () => {
    await reader?.stop();
    await otherDb?.close();
    await writer?.stop();
    await testDb?.drop();
  });

  const status = async (path: string) => (await fetch(`${reader.apiUrl}${path}`)).status;

  it("another process serves a deployed subgraph at once and forgets a deleted one", async () => {
    expect(await status("/v1/subgraphs/shared-deploy")).toBe(404);
    await writer.subgraphs.deploy(SPEC, "yaml");
    await writer.subgraphs.idle();
    await waitFor(async () => (await status("/v1/subgraphs/shared-deploy")) === 200, { timeoutMs: 10_000 });
    expect(await status("/v1/subgraphs/shared-deploy/received")).toBe(200);

    await writer.subgraphs.remove("shared-deploy");
    await waitFor(async () => (await status("/v1/subgraphs/shared-deploy")) === 404, { timeoutMs: 10_000 });
  });
});
