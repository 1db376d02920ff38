/**
 * Archive credits wired end to end, over real HTTP: an archive server that charges bundles (its
 * ledger on the test database) and an instance that bootstraps and repairs from it. A short
 * balance is refused before anything is downloaded, charged or written (also through the CLI,
 * `--yes` included); an operator grant pays for a bootstrap, whose cost is the manifest's
 * price units times the unit price; a bootstrap that failed mid-way and ran again is not charged
 * twice for a bundle; a repair within the month's free bundles costs nothing. Expected amounts
 * are computed here from the signed manifest and the ledger's own rows.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedArchive, openArchive } from "../../../runtime/archive/client.js";
import { postGrant } from "../../../runtime/archive/credits/client.js";
import { CreditsShortError } from "../../../runtime/archive/credits/restore-cost.js";
import { createCreditsApp } from "../../../runtime/archive/credits/routes.js";
import type { CreditsService } from "../../../runtime/archive/credits/service.js";
import { keyFromSeed, type Manifest } from "../../../runtime/archive/manifest.js";
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
import { countRows, dumpChainTables } from "../../support/archive.js";
import { runCli } from "../../support/cli.js";
import { type CreditsDb, createCreditsDb, makeService, quietLogger, sumOfEntries } from "../../support/credits.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { postObserver, startTestService } from "../../support/service.js";

const SPAN = 20;
const UNIT_CENTS = 25;
const OPERATOR = "operator-token-0123456789";
const URL_SECRET = Buffer.alloc(32, 9);

describe("archive restore paid with credits", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-archive-credits-"));
  const archiveDir = path.join(root, "archive");
  const config = parseConfig({
    NETWORK: "devnet",
    DATA_DIR: path.join(root, "data"),
    API_PORT: "0",
    OBSERVER_PORT: "0",
  });
  const key = keyFromSeed(Buffer.alloc(32, 3));
  const pinned = [Buffer.from(key.publicKey).toString("base64")];
  let a: TestDb;
  let b: TestDb;
  let ledger: CreditsDb;
  let service: CreditsService;
  let server: ArchiveServer;
  let manifest: Manifest;
  /** What every bundle of the manifest costs, from the manifest alone. */
  let manifestCents: number;

  const restore = (db: Db, operation: RestoreOperation, archive: OpenedArchive, creditKey: string | null, extra = {}) =>
    restoreFromArchive({
      db,
      config,
      logger: silentLogger,
      archive,
      operation,
      downloadsDir: path.join(root, `downloads-${operation}`),
      creditKey,
      confirm: async () => true,
      ...extra,
    });

  async function grant(amount: string, keyId?: string) {
    return postGrant(server.url, OPERATOR, { amount, ...(keyId ? { key_id: keyId } : {}) });
  }
  const dollars = (cents: number) => (cents / 100).toFixed(2);
  const entries = async (keyId: string, kind: string) =>
    (
      await ledger.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM credits.entries WHERE key_id = $1 AND kind = $2",
        [keyId, kind],
      )
    ).rows[0].n;

  beforeAll(async () => {
    a = await createTestDb();
    b = await createTestDb();
    ledger = await createCreditsDb();
    const { payloads } = simulateChain({ seed: "credits-restore", blocks: 110, eventsPerBlock: 8, forkRate: 0.05 });
    const ingest = await startTestService(a.db, { NETWORK: "devnet" });
    try {
      for (const p of payloads) await postObserver(ingest.observerUrl, p.path, JSON.stringify(p.body));
      await ingest.idle();
    } finally {
      await ingest.stop();
    }
    await publishArchive({ db: a.db, storage: filesystemStorage(archiveDir), key, network: "devnet", span: SPAN });
    service = makeService(ledger.db, null, () => new Date());
    server = await startArchiveServer({
      storage: filesystemStorage(archiveDir),
      host: "127.0.0.1",
      port: 0,
      urlSecret: URL_SECRET,
      credits: {
        service,
        unitPriceCents: UNIT_CENTS,
        app: createCreditsApp({ service, operatorToken: OPERATOR, logger: quietLogger }),
      },
    });
    manifest = (await openArchive(server.url, pinned)).manifest;
    expect(manifest.partitions.length).toBeGreaterThanOrEqual(3);
    manifestCents = manifest.partitions.reduce((s, p) => s + p.price_units * UNIT_CENTS, 0);
    expect(manifestCents).toBeGreaterThan(0);
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await service?.settled();
    await a?.drop();
    await b?.drop();
    await ledger?.drop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("the archive says it charges, and at what unit price", async () => {
    const res = await fetch(`${server.url}/pricing`);
    expect(await res.json()).toEqual({ charged: true, unit_price_cents: UNIT_CENTS });
  });

  it("publishes a valid OpenAPI 3.1 document of its routes, each answering with a status it documents", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? "" : compileErrors(result)).toBe("");
    const latest = (await (await fetch(`${server.url}/latest.json`)).json()) as { body: { manifest: string } };
    const values: Record<string, string> = {
      manifest: latest.body.manifest.replace(/^manifests\//, ""),
      bundle: manifest.partitions[0].file.replace(/^bundles\//, ""),
    };
    const served = new Set([
      "/health",
      "/pricing",
      "/latest.json",
      "/keys.json",
      "/manifests/{manifest}",
      "/presign",
      "/bundles/{bundle}",
    ]);
    expect(new Set(Object.keys(doc.paths))).toEqual(served);
    for (const [template, ops] of Object.entries(doc.paths)) {
      const url = template.replace(/\{(\w+)\}/g, (_m, name: string) => values[name]);
      for (const [method, op] of Object.entries(ops)) {
        const res = await fetch(`${server.url}${url}`, {
          method: method.toUpperCase(),
          ...(method === "post" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
        });
        expect(Object.keys(op.responses), `${method} ${template} answered ${res.status}`).toContain(String(res.status));
      }
    }
  });

  it("a presign without a credit key is refused with 401 and no URL", async () => {
    const res = await fetch(`${server.url}/presign`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ file: manifest.partitions[0].file, kind: "bootstrap" }),
    });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { code: string; url?: string };
    expect(body.code).toBe("INVALID_CREDIT_KEY");
    expect(body.url).toBeUndefined();
  });

  it("a presign the balance does not cover answers 402 with no URL and charges nothing", async () => {
    const first = manifest.partitions[0];
    const short = await grant(dollars(first.price_units * UNIT_CENTS - 1));
    const res = await fetch(`${server.url}/presign`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${short.credit_key}`,
        "idempotency-key": "r1:one",
      },
      body: JSON.stringify({ file: first.file, kind: "bootstrap" }),
    });
    expect(res.status).toBe(402);
    const body = (await res.json()) as { code: string; url?: string };
    expect(body.code).toBe("INSUFFICIENT_CREDITS");
    expect(body.url).toBeUndefined();
    expect(await entries(short.key_id, "charge")).toBe("0");
    expect(await sumOfEntries(ledger.db, short.key_id)).toBe(first.price_units * UNIT_CENTS - 1);
  });

  it("a short balance stops the bootstrap: nothing charged, downloaded or written", async () => {
    const short = await grant(dollars(manifestCents - 1));
    const keyId = short.key_id;
    const before = await sumOfEntries(ledger.db, keyId);
    expect(before).toBe(manifestCents - 1);
    const err = await restore(b.db, "bootstrap", await openArchive(server.url, pinned), short.credit_key ?? null).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CreditsShortError);
    expect((err as Error).message).toContain("sluice archive buy");
    expect((err as Error).message).toContain(`balance $${dollars(manifestCents - 1)}`);
    expect(await sumOfEntries(ledger.db, keyId)).toBe(before);
    expect(await entries(keyId, "charge")).toBe("0");
    expect(fs.existsSync(path.join(root, "downloads-bootstrap"))).toBe(false);
    expect(await countRows(b.db, "chain.blocks")).toBe(0);
    expect((await b.db.query("SELECT 1 FROM control.archive_restore")).rows).toEqual([]);
  });

  it("the CLI refuses a short balance even with --yes, exits non-zero and names the buy command", async () => {
    const short = await grant("0.01");
    const dataDir = path.join(root, "cli-instance");
    const r = await runCli(
      ["archive", "bootstrap", "--archive", server.url, "--public-key", pinned[0], "--yes", "--quiet"],
      { NETWORK: "devnet", DATA_DIR: dataDir, DATABASE_URL: "", ARCHIVE_CREDIT_KEY: short.credit_key ?? "" },
    );
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toContain("sluice archive buy --pack");
    expect(r.stderr).toContain(`${manifest.partitions.length} bundles, $${dollars(manifestCents)}, balance $0.01`);
    expect(fs.existsSync(path.join(dataDir, "archive-downloads"))).toBe(false);
    expect(await sumOfEntries(ledger.db, short.key_id)).toBe(1);
    expect(await entries(short.key_id, "charge")).toBe("0");
  });

  it("a granted balance pays a bootstrap once, even when it failed mid-way and ran again", async () => {
    const extra = 500;
    const paid = await grant(dollars(manifestCents + extra));
    const creditKey = paid.credit_key ?? null;
    const archive = await openArchive(server.url, pinned);
    // The third bundle's URL has expired: the first two are charged and downloaded, then it stops.
    const third = manifest.partitions[2];
    const expired = server.url + presign(URL_SECRET, `/${third.file}`, Date.now() / 1000 - 3600, 60);
    const failed = await restore(b.db, "bootstrap", archive, creditKey, {
      urlFor: (p: { file: string }) => (p.file === third.file ? expired : undefined),
    }).catch((e: unknown) => e);
    expect(String(failed)).toMatch(/refused the download URL/);
    expect(await entries(paid.key_id, "charge")).toBe("2");
    expect(await countRows(b.db, "chain.blocks")).toBe(0);
    // Resumed, the estimate leaves out the two bundles already charged (their downloads began).
    let estimate: number | undefined;
    await restore(b.db, "bootstrap", archive, creditKey, {
      confirm: async (plan: { cost?: { costCents: number } }) => {
        estimate = plan.cost?.costCents;
        return false;
      },
    });
    const unstarted = manifest.partitions.slice(2).reduce((s, p) => s + p.price_units * UNIT_CENTS, 0);
    expect(estimate).toBe(unstarted);
    // Downloaded bundles removed: the re-run asks for every URL again, with the same restore's keys.
    fs.rmSync(path.join(root, "downloads-bootstrap"), { recursive: true, force: true });
    const done = await restore(b.db, "bootstrap", archive, creditKey);
    expect(done.plan.resumed).toBe(true);
    expect(await entries(paid.key_id, "charge")).toBe(String(manifest.partitions.length));
    expect(await sumOfEntries(ledger.db, paid.key_id)).toBe(extra);
    const balance = (await (
      await fetch(`${server.url}/credits/balance`, { headers: { authorization: `Bearer ${creditKey}` } })
    ).json()) as { balance_cents: number };
    expect(balance.balance_cents).toBe(extra);
    const published = await dumpChainTables(b.db);
    expect(published.blocks.length).toBeGreaterThan(0);
    for (const p of manifest.partitions) expect((await checkPartition(b.db, p)).status).toBe("ok");

    // A repair within the month's free bundles costs nothing.
    const target = manifest.partitions[1];
    await b.db.query(
      `UPDATE chain.events SET amount = amount + 1 WHERE ctid = (SELECT ctid FROM chain.events
        WHERE canonical AND amount IS NOT NULL AND block_height BETWEEN $1 AND $2 LIMIT 1)`,
      [target.first_height, target.last_height],
    );
    expect((await checkPartition(b.db, target)).status).toBe("differs");
    const repaired = await restore(b.db, "repair", await openArchive(server.url, pinned), creditKey);
    expect(repaired.plan.cost?.costCents).toBe(0);
    expect(repaired.plan.cost?.line).toContain("1 free repair");
    expect((await checkPartition(b.db, target)).status).toBe("ok");
    expect(await sumOfEntries(ledger.db, paid.key_id)).toBe(extra);
    expect(await entries(paid.key_id, "free_repair")).toBe("1");
    expect(await entries(paid.key_id, "charge")).toBe(String(manifest.partitions.length));
  });
});
