/**
 * The archive end to end, over real HTTP: instance A ingests a simulated chain with forks (and the
 * recorded fixtures, when present) through the observer → publish → serve → instance B
 * bootstraps. B's chain tables equal A's canonical rows of the published range, and after B
 * follows the rest of the chain every chain table and every subgraph table equals A's. Then:
 * verify flags a row edited in B and repair restores it; backfill fills a deleted range; a
 * tampered bundle, a wrong signature, an expired URL and an edited URL are refused with nothing
 * written. Expected values are A's tables as the ingest path stored them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compressBundle,
  decodeBundle,
  decompressBundle,
  encodeBundle,
  sha256Hex,
} from "../../../runtime/archive/bundle.js";
import { CHAIN_TABLES, exportSlices, exportSql } from "../../../runtime/archive/chain-tables.js";
import { type OpenedArchive, openArchive } from "../../../runtime/archive/client.js";
import { loadArchiveKey } from "../../../runtime/archive/keys.js";
import { type Manifest, type Signed, keyFromSeed, sign, trustedKeys } from "../../../runtime/archive/manifest.js";
import { presign } from "../../../runtime/archive/presign.js";
import { publishArchive } from "../../../runtime/archive/publish.js";
import { restoreFromArchive } from "../../../runtime/archive/restore.js";
import type { RestoreOperation } from "../../../runtime/archive/restore-store.js";
import { type ArchiveServer, startArchiveServer } from "../../../runtime/archive/server.js";
import { filesystemStorage } from "../../../runtime/archive/storage.js";
import { checkPartition } from "../../../runtime/archive/verify.js";
import { parseConfig } from "../../../runtime/config/index.js";
import type { Db } from "../../../runtime/db/types.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { countRows, dumpChainTables, dumpSubgraphSchemas } from "../../support/archive.js";
import { TEST_DB_KIND, type TestDb, createTestDb } from "../../support/db.js";
import { ingestThroughService, postObserver, startTestService, waitFor } from "../../support/service.js";

const SEED = process.env.SEED ?? "archive-1";
const SPAN = 20;
const URL_SECRET = Buffer.alloc(32, 7);

describe(`archive publish → serve → restore (seed ${SEED})`, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-archive-"));
  const archiveDir = path.join(root, "archive");
  const config = parseConfig({
    NETWORK: "devnet",
    DATA_DIR: path.join(root, "data"),
    API_PORT: "0",
    OBSERVER_PORT: "0",
  });
  const key = loadArchiveKey(path.join(root, "archive-key.json"), true);
  const pinned = [Buffer.from(key.publicKey).toString("base64")];
  let a: TestDb;
  let b: TestDb;
  let server: ArchiveServer;
  let clock = Date.now();
  let requests: { path: string; body: string }[];
  let aChain: Record<string, string[]>;
  let aSubgraphs: Record<string, string[]>;
  let manifest: Manifest;

  const restore = (
    db: Db,
    operation: RestoreOperation,
    archive: OpenedArchive,
    extra: Partial<Parameters<typeof restoreFromArchive>[0]> = {},
  ) =>
    restoreFromArchive({
      db,
      config,
      logger: silentLogger,
      archive,
      operation,
      downloadsDir: path.join(root, `downloads-${operation}`),
      confirm: async () => true,
      ...extra,
    });

  /** B's chain and subgraph tables after a service on B has seen every request again. */
  async function followAndDump(db: Db) {
    await ingestThroughService(db, requests, { NETWORK: "devnet" });
    return { chain: await dumpChainTables(db), subgraphs: await dumpSubgraphSchemas(db) };
  }

  beforeAll(async () => {
    a = await createTestDb();
    b = await createTestDb();
    const { payloads, truth } = simulateChain({
      seed: SEED,
      blocks: 140,
      eventsPerBlock: 16,
      forkRate: 0.12,
      mix: {
        stx_transfer: 4,
        ft_transfer: 3,
        ft_mint: 1,
        ft_burn: 1,
        stx_mint: 1,
        print: 1,
        bns: 5,
        sbtc: 4,
        deploy: 1,
      },
    });
    expect(
      truth.forks.some((f) => f.outcome === "won"),
      "the simulation reorgs",
    ).toBe(true);
    requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    await ingestThroughService(a.db, requests, { NETWORK: "devnet" });
    aChain = await dumpChainTables(a.db);
    aSubgraphs = await dumpSubgraphSchemas(a.db);
    const published = await publishArchive({
      db: a.db,
      storage: filesystemStorage(archiveDir),
      key,
      network: "devnet",
      span: SPAN,
    });
    expect(published.added.length).toBeGreaterThan(3);
    server = await startArchiveServer({
      storage: filesystemStorage(archiveDir),
      host: "127.0.0.1",
      port: 0,
      urlSecret: URL_SECRET,
      now: () => clock,
    });
    manifest = (await openArchive(server.url, pinned)).manifest;
  });

  afterAll(async () => {
    await server?.close();
    await a?.drop();
    await b?.drop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("publishing again adds nothing; the same chain gives the same bundle bytes", async () => {
    const again = await publishArchive({
      db: a.db,
      storage: filesystemStorage(archiveDir),
      key,
      network: "devnet",
      span: SPAN,
    });
    expect(again.unchanged).toBe(true);
    const other = path.join(root, "archive-again");
    await publishArchive({ db: a.db, storage: filesystemStorage(other), key, network: "devnet", span: SPAN });
    for (const p of manifest.partitions)
      expect(fs.readFileSync(path.join(other, p.file)).equals(fs.readFileSync(path.join(archiveDir, p.file)))).toBe(
        true,
      );
    // Only finalized heights are published.
    const { rows } = await a.db.query<{ finalized_height: number }>("SELECT finalized_height FROM control.chain_tip");
    expect(manifest.partitions.at(-1)?.last_height).toBeLessThanOrEqual(rows[0].finalized_height);
  });

  it("a new signing key is refused unless the current key endorses it (rotation)", async () => {
    const dir = path.join(root, "rotation");
    await publishArchive({ db: a.db, storage: filesystemStorage(dir), key, network: "devnet", span: SPAN });
    const next = keyFromSeed(Buffer.alloc(32, 21));
    const publishWith = (previousKey?: typeof key) =>
      publishArchive({
        db: a.db,
        storage: filesystemStorage(dir),
        key: next,
        previousKey,
        network: "devnet",
        span: SPAN,
      });
    await expect(publishWith()).rejects.toThrow(/is new to this archive .* pass the current key as --previous-key/);
    await publishWith(key);
    const keys = JSON.parse(fs.readFileSync(path.join(dir, "keys.json"), "utf8")).keys;
    expect(keys.map((k: { key_id: string; endorsed_by: string | null }) => [k.key_id, k.endorsed_by])).toEqual([
      [key.keyId, null],
      [next.keyId, key.keyId],
    ]);
    // A client pinned to the old key trusts the new one through its endorsement.
    expect([...trustedKeys({ keys }, pinned).keys()].sort()).toEqual([key.keyId, next.keyId].sort());
  });

  it("B bootstraps to A's canonical rows, then follows the chain to equal A everywhere", async () => {
    await b.reset();
    const summary = await restore(b.db, "bootstrap", await openArchive(server.url, pinned));
    const last = manifest.partitions.at(-1);
    if (!last) throw new Error("no partition");
    expect(summary.tipHeight).toBe(last.last_block.height);
    const scope = { maxHeight: last.last_height, maxBurnHeight: last.burn_to_height };
    const want = await dumpChainTables(a.db, { ...scope, canonicalOnly: true });
    expect(want.events.length).toBeGreaterThan(500);
    expect(await dumpChainTables(b.db, scope)).toEqual(want);
    // Events are stored as ingestion stores them: compact payload, raw_value as bytes.
    const stored = async (db: Db) =>
      (
        await db.query<{ h: string; i: number; p: string; r: string | null }>(
          `SELECT index_block_hash AS h, event_index AS i, payload::text AS p, encode(raw_value, 'hex') AS r
             FROM chain.events WHERE canonical AND block_height <= $1 ORDER BY 1, 2`,
          [last.last_height],
        )
      ).rows;
    const storedA = await stored(a.db);
    expect(storedA.some((r) => r.r !== null)).toBe(true);
    expect(await stored(b.db)).toEqual(storedA);
    // The derived address rows are the ones A's ingestion wrote.
    const activity = async (db: Db) =>
      (
        await db.query<{ row: string }>(
          `SELECT concat_ws('|', index_block_hash, address, block_height, received, sent, fees, miner_rewards) AS row
             FROM chain.address_activity WHERE canonical AND block_height <= $1 ORDER BY 1`,
          [last.last_height],
        )
      ).rows.map((r) => r.row);
    const activityA = await activity(a.db);
    expect(activityA.length).toBeGreaterThan(100);
    expect(activityA.some((r) => !r.endsWith("|0|0|0|0"))).toBe(true);
    expect(await activity(b.db)).toEqual(activityA);
    // The indexes dropped for the bulk load are all back.
    const indexes = async (db: Db) =>
      (await db.query<{ d: string }>("SELECT indexdef AS d FROM pg_indexes WHERE schemaname = 'chain' ORDER BY 1"))
        .rows;
    expect(await indexes(b.db)).toEqual(await indexes(a.db));
    // Subgraphs were rebuilt and are ready; the service on B then follows the blocks above.
    const followed = await followAndDump(b.db);
    expect(followed.chain).toEqual(aChain);
    expect(Object.keys(aSubgraphs).length).toBeGreaterThanOrEqual(4);
    expect(followed.subgraphs).toEqual(aSubgraphs);
  });

  // Two processes share one database only on PostgreSQL (PGlite's data directory has one owner).
  it.skipIf(TEST_DB_KIND !== "postgres")(
    "with B's service running, observer requests posted during the bootstrap are journaled and applied after it",
    async () => {
      await b.reset();
      const service = await startTestService(b.db, { NETWORK: "devnet" });
      try {
        let posts: Promise<void> = Promise.resolve();
        let posted = false;
        await restore(b.db, "bootstrap", await openArchive(server.url, pinned), {
          progress: {
            update(line) {
              // From the downloads on, the node sends everything; each is acknowledged once
              // journaled. Applied at once, the first burn block or block would collide with the
              // bulk load (and bootstrap would refuse the chain it found).
              if (posted || !line.startsWith("download ")) return;
              posted = true;
              // In order, one after another, as a node sends them (fork choice depends on order).
              posts = (async () => {
                for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
              })();
            },
            done() {},
          },
        });
        expect(posted).toBe(true);
        await posts;
        await waitFor(async () => (await countRows(b.db, "control.journal WHERE state = 'pending'")) === 0, {
          timeoutMs: 90_000,
        });
        await service.idle();
        await service.subgraphs.idle();
      } finally {
        await service.stop();
      }
      expect(await dumpChainTables(b.db)).toEqual(aChain);
      expect(await dumpSubgraphSchemas(b.db)).toEqual(aSubgraphs);
    },
  );

  it("verify flags a row edited in B; repair restores it", async () => {
    const target = manifest.partitions[2];
    await b.db.query(
      `UPDATE chain.events SET amount = amount + 1 WHERE ctid = (SELECT ctid FROM chain.events
        WHERE canonical AND amount IS NOT NULL AND block_height BETWEEN $1 AND $2 LIMIT 1)`,
      [target.first_height, target.last_height],
    );
    const statuses = [];
    for (const p of manifest.partitions) statuses.push((await checkPartition(b.db, p)).status);
    expect(statuses).toEqual(manifest.partitions.map((p) => (p === target ? "differs" : "ok")));
    const repaired = await restore(b.db, "repair", await openArchive(server.url, pinned));
    expect(repaired.plan.partitions.map((p) => p.first_height)).toEqual([target.first_height]);
    expect((await checkPartition(b.db, target)).status).toBe("ok");
    expect(await dumpChainTables(b.db)).toEqual(aChain);
    expect(await dumpSubgraphSchemas(b.db)).toEqual(aSubgraphs);
  });

  it("backfill fills a deleted range", async () => {
    const [p1, p2] = [manifest.partitions[1], manifest.partitions[2]];
    const range = [p1.first_height, p2.last_height];
    for (const table of ["chain.events", "chain.transactions", "chain.blocks"])
      await b.db.query(`DELETE FROM ${table} WHERE canonical AND block_height BETWEEN $1 AND $2`, range);
    expect((await checkPartition(b.db, p1)).status).toBe("missing");
    const filled = await restore(b.db, "backfill", await openArchive(server.url, pinned), {
      from: range[0],
      to: range[1],
    });
    expect(filled.plan.partitions.map((p) => p.first_height)).toEqual([p1.first_height, p2.first_height]);
    expect(await dumpChainTables(b.db)).toEqual(aChain);
    expect(await dumpSubgraphSchemas(b.db)).toEqual(aSubgraphs);
  });

  /** Nothing of a refused restore is in B's database. */
  async function expectNothingWritten(db: Db) {
    expect(await countRows(db, "chain.blocks")).toBe(0);
    expect(await countRows(db, "chain.events")).toBe(0);
    expect(await countRows(db, "control.archive_partitions")).toBe(0);
    expect(await countRows(db, "control.archive_restore")).toBe(0);
  }

  it("a tampered bundle is refused, naming the partition, and nothing is written", async () => {
    const tampered = path.join(root, "tampered");
    fs.cpSync(archiveDir, tampered, { recursive: true });
    const victim = manifest.partitions.at(-1);
    if (!victim) throw new Error("no partition");
    const file = path.join(tampered, victim.file);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length >> 1] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const other = await startArchiveServer({ storage: filesystemStorage(tampered), host: "127.0.0.1", port: 0 });
    try {
      await b.reset();
      await expect(restore(b.db, "bootstrap", await openArchive(other.url, pinned))).rejects.toThrow(
        new RegExp(`partition ${victim.first_height}-${victim.last_height}: the bundle's sha256 .* is not the`),
      );
      await expectNothingWritten(b.db);
    } finally {
      await other.close();
    }
  });

  it("a partition read in height slices (the PGlite export) gives the bytes of one COPY", async () => {
    const p = manifest.partitions[0];
    const range = {
      firstHeight: p.first_height,
      lastHeight: p.last_height,
      burnAfter: p.burn_after_height,
      burnTo: p.burn_to_height,
    };
    const copyTo = a.db.copyTo?.bind(a.db);
    if (!copyTo) throw new Error("no copyTo");
    for (const table of CHAIN_TABLES.filter((t) => t.name === "chain.transactions" || t.name === "chain.events")) {
      const slices = await exportSlices(a.db, table, range, 5);
      expect(slices.length, `${table.name} is cut`).toBeGreaterThan(1);
      expect(slices[0].firstHeight).toBe(range.firstHeight);
      expect(slices.at(-1)?.lastHeight).toBe(range.lastHeight);
      for (const [i, s] of slices.entries()) if (i > 0) expect(s.firstHeight).toBe(slices[i - 1].lastHeight + 1);
      const parts = [];
      for (const s of slices) parts.push(await copyTo(exportSql(table, s)));
      expect(Buffer.concat(parts).equals(await copyTo(exportSql(table, range)))).toBe(true);
    }
  });

  it("a signed bundle whose rows are not the ones its content digest names rolls its partition back whole", async () => {
    // The archive's own key signs a manifest naming the file's true sha256, but the rows inside
    // differ from the content digest: the check runs once the rows are COPYed, before the commit.
    const altered = path.join(root, "altered");
    fs.cpSync(archiveDir, altered, { recursive: true });
    const latestFile = path.join(altered, "latest.json");
    const latest = JSON.parse(fs.readFileSync(latestFile, "utf8")) as Signed<{
      manifest: string;
      manifest_sha256: string;
    }>;
    const manifestFile = path.join(altered, latest.body.manifest);
    const doc = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as Signed<Manifest>;
    const victim = doc.body.partitions[doc.body.partitions.length - 1];
    const content = decodeBundle(decompressBundle(fs.readFileSync(path.join(altered, victim.file))));
    const events = content.sections.find((s) => s.table === "chain.events");
    if (!events || events.rows === 0) throw new Error("the last partition has no events");
    // One character of the first event's tx_id (fifth column): same length, still a valid row.
    const text = events.data.toString("utf8");
    const at = text.split("\t", 4).join("\t").length + 1 + 10;
    events.data = Buffer.from(text.slice(0, at) + (text[at] === "a" ? "b" : "a") + text.slice(at + 1));
    const file = compressBundle(encodeBundle(content));
    fs.writeFileSync(path.join(altered, victim.file), file);
    victim.sha256 = sha256Hex(file);
    victim.bytes = file.length;
    fs.writeFileSync(manifestFile, JSON.stringify(sign(doc.body, key)));
    latest.body.manifest_sha256 = sha256Hex(fs.readFileSync(manifestFile));
    fs.writeFileSync(latestFile, JSON.stringify(sign(latest.body, key)));
    const other = await startArchiveServer({ storage: filesystemStorage(altered), host: "127.0.0.1", port: 0 });
    try {
      await b.reset();
      await expect(restore(b.db, "bootstrap", await openArchive(other.url, pinned))).rejects.toThrow(
        new RegExp(`partition ${victim.first_height}-${victim.last_height}: the bundle's content digest is not`),
      );
      const inVictim = async (table: string) =>
        countRows(b.db, `${table} WHERE block_height BETWEEN ${victim.first_height} AND ${victim.last_height}`);
      expect(await inVictim("chain.blocks")).toBe(0);
      expect(await inVictim("chain.transactions")).toBe(0);
      expect(await inVictim("chain.events")).toBe(0);
      // Every other partition committed on its own.
      expect(await countRows(b.db, "control.archive_partitions")).toBe(doc.body.partitions.length - 1);
    } finally {
      await other.close();
      await b.reset();
    }
  });

  it("a manifest with a wrong signature is refused before anything is downloaded", async () => {
    const forged = path.join(root, "forged");
    fs.cpSync(archiveDir, forged, { recursive: true });
    const name = path.join(forged, "manifests", "00000001.json");
    const doc = JSON.parse(fs.readFileSync(name, "utf8")) as Signed<Manifest>;
    // Another key signs a manifest whose first bundle digest is changed.
    const intruder = keyFromSeed(Buffer.alloc(32, 9));
    doc.body.partitions[0].sha256 = "0".repeat(64);
    fs.writeFileSync(name, JSON.stringify(sign(doc.body, intruder)));
    const latestFile = path.join(forged, "latest.json");
    const latest = JSON.parse(fs.readFileSync(latestFile, "utf8"));
    latest.body.manifest_sha256 = (await import("node:crypto"))
      .createHash("sha256")
      .update(fs.readFileSync(name))
      .digest("hex");
    fs.writeFileSync(latestFile, JSON.stringify(latest)); // body edited, old signature kept
    const other = await startArchiveServer({ storage: filesystemStorage(forged), host: "127.0.0.1", port: 0 });
    try {
      await expect(openArchive(other.url, pinned)).rejects.toThrow(/latest\.json has a bad signature/);
      fs.writeFileSync(latestFile, JSON.stringify(sign(latest.body, key))); // pointer re-signed properly
      await expect(openArchive(other.url, pinned)).rejects.toThrow(/signed by key [0-9a-f]{16}, which is not trusted/);
      await b.reset();
      await expectNothingWritten(b.db);
    } finally {
      await other.close();
    }
  });

  it("an expired or edited URL gets 403 and the restore writes nothing; Range requests resume", async () => {
    const [p0, p1] = manifest.partitions;
    const signed = presign(URL_SECRET, `/${p0.file}`, clock / 1000, 300);
    const ranged = await fetch(`${server.url}${signed}`, { headers: { range: "bytes=10-29" } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-range")).toBe(`bytes 10-29/${p0.bytes}`);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(
      fs.readFileSync(path.join(archiveDir, p0.file)).subarray(10, 30),
    );

    const edited = signed.replace(p0.file, p1.file);
    const editedRes = await fetch(`${server.url}${edited}`);
    expect(editedRes.status).toBe(403);
    expect(((await editedRes.json()) as { code: string }).code).toBe("URL_SIGNATURE_INVALID");
    const longer = signed.replace(/expires=(\d+)/, (_m, e) => `expires=${Number(e) + 3600}`);
    expect((await fetch(`${server.url}${longer}`)).status).toBe(403);

    clock += 301_000; // five minutes and a second later the same URL is refused
    const expiredRes = await fetch(`${server.url}${signed}`);
    expect(expiredRes.status).toBe(403);
    expect(((await expiredRes.json()) as { code: string }).code).toBe("URL_EXPIRED");

    await b.reset();
    const archive = await openArchive(server.url, pinned);
    await expect(
      restore(b.db, "bootstrap", archive, {
        urlFor: (p) => `${server.url}${presign(URL_SECRET, `/${p.file}`, clock / 1000 - 301, 300)}`,
      }),
    ).rejects.toThrow(/403 URL_EXPIRED/);
    await expectNothingWritten(b.db);
    await expect(
      restore(b.db, "bootstrap", archive, {
        urlFor: (p) =>
          `${server.url}${presign(URL_SECRET, `/${p.file}`, clock / 1000, 300).replace("expires=", "expires=1")}`,
      }),
    ).rejects.toThrow(/403 URL_SIGNATURE_INVALID/);
    await expectNothingWritten(b.db);
  });

  it("a download left part-way resumes with a Range request", async () => {
    await b.reset();
    const downloads = path.join(root, "downloads-resume");
    fs.rmSync(downloads, { recursive: true, force: true });
    fs.mkdirSync(downloads, { recursive: true });
    const first = manifest.partitions[0];
    const whole = fs.readFileSync(path.join(archiveDir, first.file));
    const half = whole.length >> 1;
    fs.writeFileSync(path.join(downloads, `${first.sha256}.bundle.gz.part`), whole.subarray(0, half));
    const total = manifest.partitions.reduce((n, p) => n + p.bytes, 0);
    const summary = await restore(b.db, "bootstrap", await openArchive(server.url, pinned), {
      downloadsDir: downloads,
    });
    expect(summary.downloadedBytes).toBe(total - half);
    const last = manifest.partitions.at(-1);
    if (!last) throw new Error("no partition");
    const scope = { maxHeight: last.last_height, maxBurnHeight: last.burn_to_height };
    expect(await dumpChainTables(b.db, scope)).toEqual(await dumpChainTables(a.db, { ...scope, canonicalOnly: true }));
  });

  it("bootstrap refuses an instance whose chain holds blocks", async () => {
    await b.reset();
    const service = await startTestService(b.db, { NETWORK: "devnet" });
    try {
      await postObserver(service.observerUrl, requests[0].path, requests[0].body);
      const block = requests.find((r) => r.path === "/new_block");
      if (block) await postObserver(service.observerUrl, block.path, block.body);
      await service.idle();
    } finally {
      await service.stop();
    }
    await expect(restore(b.db, "bootstrap", await openArchive(server.url, pinned))).rejects.toThrow(/chain is empty/);
  });
});
