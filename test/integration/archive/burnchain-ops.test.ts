import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openArchive } from "../../../runtime/archive/client.js";
import { keyFromSeed } from "../../../runtime/archive/manifest.js";
import { publishArchive } from "../../../runtime/archive/publish.js";
import { restoreFromArchive } from "../../../runtime/archive/restore.js";
import { startArchiveServer } from "../../../runtime/archive/server.js";
import { filesystemStorage } from "../../../runtime/archive/storage.js";
import { parseConfig } from "../../../runtime/config/index.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { dumpChainTables } from "../../support/archive.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { ingestThroughService } from "../../support/service.js";
import { scratchDir } from "../../support/scratch-dir.js";

const SENDER = { address: "SP2ZP4GJDZJ1FDHTQ963F0292PE9J9752TZJ68F21", address_version: 22 };
const OPS = [
  {
    stack_stx: {
      sender: SENDER,
      reward_addr: "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH",
      stacked_ustx: 1_000_000,
      num_cycles: 2,
      burn_block_height: 666051,
      signer_key: null,
      max_amount: null,
      auth_id: null,
    },
  },
  {
    delegate_stx: {
      sender: SENDER,
      delegate_to: { address: "SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE", address_version: 22 },
      delegated_ustx: 5,
      reward_addr: null,
      until_burn_height: null,
    },
  },
];

/** The recording with the ops added to its first block. */
function requestsWithOps(): { path: string; body: string }[] {
  const requests = readReplayTsv("observer/stacks-blockchain-api/mainnet-reorg-scenario1.tsv").map((r) => ({
    path: r.path,
    body: r.body,
  }));
  const first = requests.findIndex((r) => r.path === "/new_block");
  const block = JSON.parse(requests[first].body);
  const next = Math.max(-1, ...block.transactions.map((t: { tx_index: number }) => t.tx_index)) + 1;
  OPS.forEach((op, i) => {
    block.transactions.push({
      txid: `0x${String(i + 1)
        .padStart(2, "0")
        .repeat(32)}`,
      tx_index: next + i,
      raw_tx: "0x00",
      status: "success",
      raw_result: "0x0703",
      burnchain_op: op,
      microblock_hash: null,
      microblock_sequence: null,
      microblock_parent_hash: null,
    });
  });
  requests[first] = { path: "/new_block", body: JSON.stringify(block) };
  return requests;
}

describe.skipIf(!hasFixtures)("archive: Bitcoin operation details", () => {
  const rootDir = scratchDir("sluice-archive-ops-");
  const key = keyFromSeed(Buffer.alloc(32, 5));
  let a: TestDb;
  let b: TestDb;
  beforeAll(async () => {
    a = await createTestDb();
    b = await createTestDb();
  });
  afterAll(async () => {
    await a?.drop();
    await b?.drop();
    rootDir.remove();
  });

  it("a bootstrap carries them", async () => {
    await ingestThroughService(a.db, requestsWithOps(), { NETWORK: "mainnet" });
    const { rows } = await a.db.query<{ op: string }>(
      "SELECT burnchain_op_details->>'op' AS op FROM chain.transactions WHERE burnchain_op ORDER BY tx_id",
    );
    expect(rows.map((r) => r.op)).toEqual(["stack_stx", "delegate_stx"]);

    const dir = path.join(rootDir.path, "bundles");
    const published = await publishArchive({
      db: a.db,
      storage: filesystemStorage(dir),
      key,
      network: "mainnet",
      span: 2,
    });
    expect(published.partitions).toBeGreaterThan(0);
    const server = await startArchiveServer({ storage: filesystemStorage(dir), host: "127.0.0.1", port: 0 });
    try {
      const archive = await openArchive(server.url, [Buffer.from(key.publicKey).toString("base64")]);
      await restoreFromArchive({
        db: b.db,
        config: parseConfig({ NETWORK: "mainnet", DATA_DIR: rootDir.path }),
        logger: silentLogger,
        archive,
        operation: "bootstrap",
        downloadsDir: path.join(rootDir.path, "downloads"),
        confirm: async () => true,
      });
      const last = archive.manifest.partitions.at(-1);
      if (!last) throw new Error("no partition");
      const scope = { maxHeight: last.last_height, maxBurnHeight: last.burn_to_height };
      expect(await dumpChainTables(b.db, scope)).toEqual(
        await dumpChainTables(a.db, { ...scope, canonicalOnly: true }),
      );
      const restored = await b.db.query<{ details: unknown }>(
        "SELECT burnchain_op_details AS details FROM chain.transactions WHERE burnchain_op ORDER BY tx_id",
      );
      expect(restored.rows.map((r) => (r.details as { op: string }).op)).toEqual(["stack_stx", "delegate_stx"]);
    } finally {
      await server.close();
    }
  });
});
