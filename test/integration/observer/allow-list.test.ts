/**
 * OBSERVER_ALLOW_FROM on a real socket: the observer bound past loopback answers 403 to a caller
 * outside the list before journaling anything, and ingests what an allowed caller posts (an IPv4
 * caller reaching a dual-stack listener arrives as ::ffff:a.b.c.d and still matches its IPv4 CIDR).
 */
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../../runtime/config/index.js";
import { createLogger } from "../../../runtime/internal/logger.js";
import { type Service, startService } from "../../../runtime/service.js";
import { expectedChain } from "../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { waitFor } from "../../support/service.js";

/** A non-loopback IPv4 address of this machine: a caller that is not loopback, without a second host. */
const lanAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i?.family === "IPv4" && !i.internal)?.address;

const requests = () => readReplayTsv(path.join(FIXTURES_DIR, "observer/stacks-blockchain-api/balance-reorg.tsv.gz"));

/** POSTs from a chosen source address; resolves with the status and the parsed body. */
function postFrom(
  localAddress: string,
  url: string,
  body: string,
): Promise<{ status: number; body: { error?: string; code?: string } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", localAddress, headers: { "content-type": "application/json" } });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe.skipIf(!hasFixtures || !lanAddress)("observer allow-list (OBSERVER_ALLOW_FROM)", () => {
  const lan = lanAddress as string;
  let testDb: TestDb;
  let service: Service | undefined;
  let logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await service?.stop();
    await testDb?.drop();
  });

  /** A fresh database and a service started with env; the previous service is stopped first. */
  async function start(env: Record<string, string>): Promise<{ port: number }> {
    await service?.stop();
    service = undefined;
    await testDb.reset();
    logs = [];
    const config = parseConfig({ API_PORT: "0", OBSERVER_PORT: "0", DATA_DIR: ".tmp/unused", ...env });
    const logger = createLogger({ level: "warn", write: (line) => logs.push(JSON.parse(line)) });
    service = await startService({ config, logger, db: testDb.db });
    return { port: Number(new URL(service.observerUrl).port) };
  }

  const journaled = async () =>
    Number((await testDb.db.query<{ n: number }>("SELECT count(*)::int AS n FROM control.journal")).rows[0].n);

  it("a caller outside the list gets 403 with the standard error body; nothing is journaled; it is logged", async () => {
    // TEST-NET-3: a list that does not hold this machine's address.
    const { port } = await start({ OBSERVER_HOST: "0.0.0.0", OBSERVER_ALLOW_FROM: "203.0.113.0/24" });
    for (const r of requests()) {
      const res = await postFrom(lan, `http://${lan}:${port}${r.path}`, r.body);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.stringContaining(lan), code: "OBSERVER_FORBIDDEN" });
    }
    expect(await journaled()).toBe(0);
    const refusals = logs.filter((l) => String(l.msg).includes("OBSERVER_ALLOW_FROM"));
    expect(refusals.length).toBe(requests().length);
    expect(refusals[0]).toMatchObject({ level: "warn", remote: lan });

    // Loopback is always allowed: a node on the same host keeps working.
    const first = requests()[0];
    const local = await postFrom("127.0.0.1", `http://127.0.0.1:${port}${first.path}`, first.body);
    expect(local.status).toBe(200);
    expect(await journaled()).toBe(1);
  });

  it("a caller inside the list is ingested, also as an IPv4-mapped address on a dual-stack listener", async () => {
    const { port } = await start({ OBSERVER_HOST: "::", OBSERVER_ALLOW_FROM: `198.51.100.0/24, ${lan}/32` });
    const rows = requests();
    for (const r of rows) {
      const res = await postFrom(lan, `http://${lan}:${port}${r.path}`, r.body);
      expect(res.status).toBe(200);
    }
    await (service as Service).idle();
    expect(await journaled()).toBe(rows.length);
    const want = expectedChain(rows).canonicalHashes;
    const canonical = await waitFor(async () => {
      const { rows: got } = await testDb.db.query<{ h: string }>(
        "SELECT index_block_hash AS h FROM chain.blocks WHERE canonical",
      );
      return got.length === want.size ? got : null;
    });
    expect(new Set(canonical.map((r) => r.h))).toEqual(want);
  });
});
