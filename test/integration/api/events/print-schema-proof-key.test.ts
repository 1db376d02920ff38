/**
 * GET /v1/index/contracts/:contract_id/print-schema, GET /v1/index/transactions/:tx_id/proof and
 * GET /public/streams/signing-key over real HTTP (SPEC.md "Index and Streams routes",
 * "Signatures on every delivery"). Expected schemas are derived in the test from the raw print
 * values (decoded with @stacks/transactions directly); expected Merkle roots come from the raw
 * Nakamoto block headers, or are computed literally from the posted txids.
 */
import { createHash, createPublicKey } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type ClarityValue, ClarityType, hexToCV } from "@stacks/transactions";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyTxProof } from "../../../../runtime/sdk/verify-proof.js";
import { createDeliveryVerifier, DeliveryVerificationError } from "../../../../runtime/sdk/webhook-receiver.js";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { RawRequest } from "../../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { FIXTURES_DIR, hasFixtures } from "../../../support/fixtures.js";
import { haveRawBlocks, loadSingleBlockFixtures, loadTenureFixtures } from "../../../support/raw-block-fixtures.js";
import {
  parseNakamotoBlock,
  parseNakamotoBlocks,
  type NakamotoBlock,
} from "../../../../runtime/chain/nakamoto-block.js";
import { startReceiver } from "../../../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../../../support/service.js";
import { webhookClient } from "../../../support/webhooks.js";
import { modelChain, replayFixtures } from "../../../support/read-api-model.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

let testDb: TestDb;
beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  await testDb?.drop();
});

async function withService<T>(env: Record<string, string>, fn: (s: Service) => Promise<T>): Promise<T> {
  const service = await startTestService(testDb.db, env);
  try {
    return await fn(service);
  } finally {
    await service.stop();
  }
}

async function ingest(service: Service, requests: RawRequest[]) {
  for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
  await service.idle();
}

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
};

// --- print-schema -------------------------------------------------------------------------

/** The documented type signature, written out from @stacks/transactions' own value types. */
function sigOf(cv: ClarityValue): Json {
  switch (cv.type) {
    case ClarityType.UInt:
      return { type: "uint" };
    case ClarityType.Int:
      return { type: "int" };
    case ClarityType.BoolTrue:
    case ClarityType.BoolFalse:
      return { type: "bool" };
    case ClarityType.Buffer:
      return { type: "buffer" };
    case ClarityType.StringASCII:
      return { type: "string-ascii" };
    case ClarityType.StringUTF8:
      return { type: "string-utf8" };
    case ClarityType.PrincipalStandard:
    case ClarityType.PrincipalContract:
      return { type: "principal" };
    case ClarityType.OptionalNone:
      return { type: "optional", inner: null };
    case ClarityType.OptionalSome:
      return { type: "optional", inner: sigOf(cv.value) };
    case ClarityType.ResponseOk:
      return { type: "response", ok: sigOf(cv.value), err: null };
    case ClarityType.ResponseErr:
      return { type: "response", ok: null, err: sigOf(cv.value) };
    case ClarityType.List:
      return { type: "list", element: cv.value.length ? sigOf(cv.value[0]) : null };
    case ClarityType.Tuple:
      return { type: "tuple", fields: Object.fromEntries(Object.entries(cv.value).map(([k, v]) => [k, sigOf(v)])) };
  }
}

interface ExpectedPrint {
  height: number;
  topic: string;
  value: ClarityValue | null;
}

/** Canonical committed prints of a contract, straight from the raw blocks. */
function expectedPrints(requests: RawRequest[], contractId: string): ExpectedPrint[] {
  const out: ExpectedPrint[] = [];
  for (const b of modelChain(requests).canonicalBlocks) {
    const sorted = [...b.events].sort((x: Json, y: Json) => x.event_index - y.event_index);
    for (const e of sorted) {
      if (e.type !== "contract_event" || !e.committed || e.contract_event.contract_identifier !== contractId) continue;
      let value: ClarityValue | null = null;
      try {
        value = hexToCV(e.contract_event.raw_value);
      } catch {
        value = null;
      }
      const tupleTopic =
        value?.type === ClarityType.Tuple && value.value.topic?.type === ClarityType.StringASCII
          ? value.value.topic.value
          : undefined;
      out.push({ height: b.block_height, topic: tupleTopic ?? e.contract_event.topic, value });
    }
  }
  return out;
}

function topicSummary(prints: ExpectedPrint[]) {
  const topics: Record<string, { count: number; first_block_height: number; last_block_height: number }> = {};
  for (const p of prints) {
    if (!p.value) continue;
    if (!topics[p.topic]) topics[p.topic] = { count: 0, first_block_height: p.height, last_block_height: p.height };
    const t = topics[p.topic];
    t.count++;
    t.first_block_height = Math.min(t.first_block_height, p.height);
    t.last_block_height = Math.max(t.last_block_height, p.height);
  }
  return topics;
}

const SBTC_REGISTRY = "SN3R84XZYA63QS28932XQF3G1J8R9PC3W76P9CSQS.sbtc-registry";

describe.skipIf(!hasFixtures)("print-schema on fixture contracts", () => {
  const sbtcFile = (f: string): RawRequest => ({
    path: "/new_block",
    body: readFileSync(path.join(FIXTURES_DIR, "observer/sbtc", f), "utf8"),
  });

  it("sBTC registry: topics from the tuple `topic` field, field types, counts, heights, the undecodable print; cached with ETag/304; grows incrementally", async () => {
    await testDb.reset();
    const first = [
      "rotate-keys-and-invalid-event.json",
      "completed-deposit-event.json",
      "completed-deposit-testnet-event.json",
      "withdrawal-create-event.json",
      "withdrawal-accept-event.json",
    ].map(sbtcFile);
    const later = [sbtcFile("withdrawal-reject-event.json"), sbtcFile("rotate-keys-event.json")];
    await withService({}, async (service) => {
      const url = `${service.apiUrl}/v1/index/contracts/${SBTC_REGISTRY}/print-schema`;
      await ingest(service, first);
      const a = await getJson(url);
      expect(a.status).toBe(200);
      expect(a.headers.get("cache-control")).toBe("public, max-age=300");
      const etag = a.headers.get("etag") as string;
      expect(etag).toMatch(/^W\/"/);
      const prints = expectedPrints(first, SBTC_REGISTRY);
      expect(a.body).toMatchObject({
        contract_id: SBTC_REGISTRY,
        print_count: prints.length,
        undecodable_count: prints.filter((p) => !p.value).length,
      });
      expect(a.body.undecodable_count).toBe(1); // the hand-made raw_value "0x"
      const summary = topicSummary(prints);
      expect(Object.keys(a.body.topics)).toEqual(Object.keys(summary).sort());
      for (const [topic, s] of Object.entries(summary)) expect(a.body.topics[topic]).toMatchObject(s);
      // Field types: one print per topic here, so each field's type is that value's type.
      for (const p of prints) {
        if (!p.value || p.value.type !== ClarityType.Tuple) continue;
        const fields = a.body.topics[p.topic].fields;
        for (const [key, v] of Object.entries(p.value.value)) {
          expect(fields[key], `${p.topic}.${key}`).toEqual({
            count: 1,
            presence_rate: 1,
            type: sigOf(v as ClarityValue),
          });
        }
        expect(a.body.topics[p.topic].type).toEqual(sigOf(p.value));
      }
      expect(a.body.topics["withdrawal-create"].fields.recipient.type).toEqual({
        type: "tuple",
        fields: { hashbytes: { type: "buffer" }, version: { type: "buffer" } },
      });

      const revalidate = await fetch(url, { headers: { "if-none-match": etag, "cache-control": "max-age=0" } });
      expect(revalidate.status).toBe(304);

      await ingest(service, later);
      const b = await getJson(url);
      const all = expectedPrints([...first, ...later], SBTC_REGISTRY);
      expect(b.headers.get("etag")).not.toBe(etag);
      expect(b.body.print_count).toBe(all.length);
      const summaryAll = topicSummary(all);
      for (const [topic, s] of Object.entries(summaryAll)) expect(b.body.topics[topic]).toMatchObject(s);
      expect(b.body.topics["withdrawal-reject"]).toBeDefined();
      const stale = await fetch(url, { headers: { "if-none-match": etag, "cache-control": "max-age=0" } });
      expect(stale.status).toBe(200);
    });
  });

  it("balance-reorg: the busiest printing contract's topics, counts, heights and field presence rates", async () => {
    await testDb.reset();
    const fixture = replayFixtures().find((f) => f.name === "balance-reorg.tsv.gz");
    if (!fixture) throw new Error("fixture missing");
    const counts = new Map<string, number>();
    for (const e of modelChain(fixture.requests).events) {
      if (e.event_type === "print") counts.set(e.contract_id as string, (counts.get(e.contract_id as string) ?? 0) + 1);
    }
    const byPrints = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([contract]) => contract);
    const busiest = byPrints[0];
    // The busiest contract prints buffers (memos); field presence rates need tuple prints, so the
    // busiest contract that prints tuples is read as well.
    const tuplesOf = (contract: string) =>
      expectedPrints(fixture.requests, contract).filter((p) => p.value?.type === ClarityType.Tuple);
    const busiestTuplePrinter = byPrints.find((contract) => tuplesOf(contract).length > 0);
    if (!busiestTuplePrinter) throw new Error("no contract prints tuples in balance-reorg");
    await withService({}, async (service) => {
      await ingest(service, fixture.requests);
      let fieldsChecked = 0;
      for (const contract of new Set([busiest, busiestTuplePrinter])) {
        const { status, body } = await getJson(`${service.apiUrl}/v1/index/contracts/${contract}/print-schema`);
        expect(status).toBe(200);
        const prints = expectedPrints(fixture.requests, contract);
        expect(body.print_count).toBe(prints.length);
        const summary = topicSummary(prints);
        expect(Object.keys(body.topics)).toEqual(Object.keys(summary).sort());
        for (const [topic, s] of Object.entries(summary)) {
          expect(body.topics[topic]).toMatchObject(s);
          const tuples = prints.filter((p) => p.topic === topic && p.value?.type === ClarityType.Tuple);
          if (!tuples.length) continue;
          const keys = new Set(tuples.flatMap((p) => Object.keys((p.value as Json).value)));
          expect(Object.keys(body.topics[topic].fields).sort()).toEqual([...keys].sort());
          for (const key of keys) {
            const present = tuples.filter((p) => Object.hasOwn((p.value as Json).value, key)).length;
            expect(body.topics[topic].fields[key].count).toBe(present);
            expect(body.topics[topic].fields[key].presence_rate).toBeCloseTo(present / tuples.length, 5);
            fieldsChecked++;
          }
        }
      }
      expect(fieldsChecked).toBeGreaterThan(0);
    });
  });

  it("a simulated chain with forks, read while it grows: the schema always matches the canonical prints", async () => {
    await testDb.reset();
    const { payloads } = simulateChain({
      seed: "read-api-print-schema",
      blocks: 50,
      eventsPerBlock: 20,
      forkRate: 0.3,
    });
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    const printers = new Map<string, number>();
    for (const e of modelChain(requests).events) {
      if (e.event_type === "print")
        printers.set(e.contract_id as string, (printers.get(e.contract_id as string) ?? 0) + 1);
    }
    expect(printers.size).toBeGreaterThan(0);
    await withService({}, async (service) => {
      const step = Math.ceil(requests.length / 5);
      for (let end = step; end < requests.length + step; end += step) {
        await ingest(service, requests.slice(end - step, end));
        const sofar = requests.slice(0, Math.min(end, requests.length));
        for (const contract of printers.keys()) {
          const prints = expectedPrints(sofar, contract);
          const res = await getJson(`${service.apiUrl}/v1/index/contracts/${contract}/print-schema`);
          if (!prints.length) {
            // Deployed (or otherwise seen) but no canonical print yet, or not indexed at all.
            expect([200, 404]).toContain(res.status);
            if (res.status === 200) expect(res.body.print_count).toBe(0);
            continue;
          }
          expect(res.status).toBe(200);
          expect(res.body.print_count).toBe(prints.length);
          const summary = topicSummary(prints);
          for (const [topic, s] of Object.entries(summary)) expect(res.body.topics[topic]).toMatchObject(s);
          expect(Object.keys(res.body.topics).sort()).toEqual(Object.keys(summary).sort());
        }
      }
    });
  });
});

// --- transaction proofs ---------------------------------------------------------------------

const sha512_256 = (...parts: Buffer[]) => createHash("sha512-256").update(Buffer.concat(parts)).digest();

/** tx_merkle_root written out literally (leaf 0x00, node 0x01, odd levels duplicate the last). */
function literalRoot(txids: string[]): string {
  let level: Buffer[] = txids.map((t) => sha512_256(Buffer.from([0]), Buffer.from(t.slice(2), "hex")));
  do {
    if (level.length % 2) level.push(level[level.length - 1]);
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha512_256(Buffer.from([1]), level[i], level[i + 1]));
    level = next;
  } while (level.length > 1);
  return `0x${level[0].toString("hex")}`;
}

/** A /new_block body for a raw Nakamoto block: its real transactions, synthetic burn data. */
function newBlockBody(block: NakamotoBlock): string {
  const height = Number(block.header.chainLength);
  const fake = (tag: string) => `0x${createHash("sha256").update(`${tag}:${block.indexBlockHash}`).digest("hex")}`;
  return JSON.stringify({
    block_hash: block.blockHash,
    block_height: height,
    index_block_hash: block.indexBlockHash,
    parent_index_block_hash: block.header.parentBlockId,
    parent_block_hash: fake("parent-block-hash"),
    burn_block_hash: fake("burn"),
    burn_block_height: 1000 + height,
    burn_block_time: Number(block.header.timestamp),
    transactions: block.txs.map((tx, i) => ({
      txid: tx.txid,
      tx_index: i,
      raw_tx: `0x${Buffer.from(tx.raw).toString("hex")}`,
      status: "success",
      raw_result: "0x0703",
    })),
    events: [],
  });
}

describe("transaction proofs", () => {
  it.skipIf(!haveRawBlocks)(
    "every transaction of every raw-block fixture proves against its header's tx_merkle_root",
    async () => {
      const singles = loadSingleBlockFixtures().map((f) => [parseNakamotoBlock(f.bytes)]);
      const tenure = new Map<string, NakamotoBlock>();
      for (const f of loadTenureFixtures())
        for (const b of parseNakamotoBlocks(f.bytes)) tenure.set(b.indexBlockHash, b);
      // One group per chain: the tenure blocks oldest first (each parent is the previous block).
      const chain = [...tenure.values()].sort((a, b) => Number(a.header.chainLength - b.header.chainLength));
      const groups: NakamotoBlock[][] = [...singles, chain];
      let proven = 0;
      for (const group of groups) {
        await testDb.reset();
        await withService({}, async (service) => {
          await ingest(
            service,
            group.map((b) => ({ path: "/new_block", body: newBlockBody(b) })),
          );
          for (const block of group) {
            for (const [i, tx] of block.txs.entries()) {
              const { status, body } = await getJson(`${service.apiUrl}/v1/index/transactions/${tx.txid}/proof`);
              expect(status, `${tx.txid} in block ${block.indexBlockHash}`).toBe(200);
              expect(body.block).toEqual({
                index_block_hash: block.indexBlockHash,
                block_hash: block.blockHash,
                block_height: Number(block.header.chainLength),
                burn_block_height: 1000 + Number(block.header.chainLength),
              });
              expect(body.tx_index).toBe(i);
              expect(body.merkle.root).toBe(block.header.txMerkleRoot);
              expect(verifyTxProof(body.merkle, { txId: tx.txid, txMerkleRoot: block.header.txMerkleRoot })).toBe(true);
              expect(typeof body.verify).toBe("string");
              proven++;
            }
          }
        });
      }
      expect(proven).toBeGreaterThan(20);
    },
  );

  it("every canonical transaction of an ingested simulated chain proves; orphaned ones are 404", async () => {
    await testDb.reset();
    const { payloads } = simulateChain({ seed: "read-api-proof", blocks: 30, eventsPerBlock: 10, forkRate: 0.3 });
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    const model = modelChain(requests);
    await withService({}, async (service) => {
      await ingest(service, requests);
      const canonicalTxids = new Set<string>();
      for (const b of model.canonicalBlocks) {
        const tree = b.transactions
          .filter((t: Json) => t.raw_tx !== "0x00" && !t.microblock_hash)
          .sort((x: Json, y: Json) => x.tx_index - y.tx_index)
          .map((t: Json) => t.txid.toLowerCase());
        const root = literalRoot(tree);
        for (const txid of tree) {
          canonicalTxids.add(txid);
          const { status, body } = await getJson(`${service.apiUrl}/v1/index/transactions/${txid}/proof`);
          expect(status).toBe(200);
          expect(body.block.index_block_hash).toBe(b.index_block_hash);
          expect(body.merkle.root).toBe(root);
          expect(verifyTxProof(body.merkle, { txId: txid, txMerkleRoot: root })).toBe(true);
        }
      }
      let orphanedChecked = 0;
      for (const r of requests) {
        if (r.path !== "/new_block") continue;
        const b = JSON.parse(r.body);
        if (!model.orphanedHashes.has(b.index_block_hash)) continue;
        for (const t of b.transactions) {
          if (canonicalTxids.has(t.txid.toLowerCase())) continue;
          const res = await getJson(`${service.apiUrl}/v1/index/transactions/${t.txid}/proof`);
          expect(res.status).toBe(404);
          expect(res.body.code).toBe("TX_NOT_FOUND");
          orphanedChecked++;
        }
      }
      expect(orphanedChecked).toBeGreaterThan(0);
    });
  });

  it.skipIf(!hasFixtures)(
    "Bitcoin-originated operations have no proof (404); other transactions of those blocks do",
    async () => {
      const dir = path.join(FIXTURES_DIR, "observer/stacks-blockchain-api/single-blocks");
      let burnOps = 0;
      let proven = 0;
      for (const f of readdirSync(dir).sort()) {
        const body = readFileSync(path.join(dir, f), "utf8");
        const block = JSON.parse(body);
        await testDb.reset();
        await withService({}, async (service) => {
          await ingest(service, [{ path: "/new_block", body }]);
          const tree = block.transactions
            .filter((t: Json) => t.raw_tx !== "0x00" && !t.microblock_hash)
            .sort((x: Json, y: Json) => x.tx_index - y.tx_index)
            .map((t: Json) => t.txid.toLowerCase());
          for (const t of block.transactions) {
            const res = await getJson(`${service.apiUrl}/v1/index/transactions/${t.txid}/proof`);
            if (t.raw_tx === "0x00") {
              burnOps++;
              expect(res.status).toBe(404);
              expect(res.body).toMatchObject({ code: "TX_NOT_FOUND", details: { reason: "burnchain_op" } });
            } else if (!t.microblock_hash) {
              proven++;
              expect(res.status).toBe(200);
              expect(verifyTxProof(res.body.merkle, { txId: t.txid, txMerkleRoot: literalRoot(tree) })).toBe(true);
            }
          }
        });
      }
      expect(burnOps).toBeGreaterThan(0);
      expect(proven).toBeGreaterThan(0);
    },
  );
});

// --- signing key ----------------------------------------------------------------------------

describe("GET /public/streams/signing-key", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const tmpDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), "sluice-key-"));
    dirs.push(d);
    return d;
  };
  const rawPublicKey = (pem: string) => {
    const key = createPublicKey(pem);
    expect(key.asymmetricKeyType).toBe("ed25519");
    return Buffer.from(key.export({ format: "jwk" }).x as string, "base64url");
  };

  const keyIdOf = (pem: string) => `key_${createHash("sha256").update(rawPublicKey(pem)).digest("hex").slice(0, 16)}`;

  it("serves the SPKI PEM itself by default, key id in x-service-signature-keyid; JSON on Accept: application/json; the same after a restart", async () => {
    await testDb.reset();
    const dataDir = tmpDir();
    const read = (s: Service) =>
      Promise.all([
        fetch(`${s.apiUrl}/public/streams/signing-key`).then(async (res) => ({ res, text: await res.text() })),
        fetch(`${s.apiUrl}/public/streams/signing-key`, { headers: { accept: "application/json" } }).then(
          async (res) => ({ res, body: (await res.json()) as Json }),
        ),
      ]);
    const [pem, json] = await withService({ DATA_DIR: dataDir }, read);
    expect(pem.res.status).toBe(200);
    expect(pem.res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(pem.text).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    // What a receiver does with the answer: Node parses it as a key, with no unwrapping.
    expect(createPublicKey(pem.text).asymmetricKeyType).toBe("ed25519");
    expect(pem.res.headers.get("x-service-signature-keyid")).toBe(keyIdOf(pem.text));
    expect(pem.res.headers.get("vary")).toMatch(/accept/i);

    expect(json.res.status).toBe(200);
    expect(json.res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(json.body).toEqual({ key_id: keyIdOf(pem.text), algorithm: "ed25519", public_key_pem: pem.text });
    expect(json.res.headers.get("x-service-signature-keyid")).toBe(json.body.key_id);
    // Two representations, two validators.
    expect(json.res.headers.get("etag")).not.toBe(pem.res.headers.get("etag"));
    expect(existsSync(path.join(dataDir, "signing-key.json"))).toBe(true);

    const [pemAgain, jsonAgain] = await withService({ DATA_DIR: dataDir }, read);
    expect(pemAgain.text).toBe(pem.text);
    expect(jsonAgain.body).toEqual(json.body);
  });

  it("the SDK verifier checks a real delivery against the served key, in the PEM and in the JSON form", async () => {
    await testDb.reset();
    const receiver = await startReceiver();
    try {
      await withService({ DATA_DIR: tmpDir(), WEBHOOK_ALLOW_PRIVATE: "true" }, async (s) => {
        const api = webhookClient(s.apiUrl);
        const created = await api.create({ name: "key-check", url: receiver.url, triggers: [{ type: "ft_transfer" }] });
        expect(created.status).toBe(201);
        expect((await api.test("key-check")).status).toBe(200);
        const delivery = await waitFor(() => receiver.requests.find((r) => r.status === 200));

        // The verifier's own fetch, and one asking for JSON (the form older instances always send);
        // both record the media type the service answered with.
        const served: (string | undefined)[] = [];
        const recording =
          (accept: string | null): typeof fetch =>
          async (input, init) => {
            const headers = new Headers(init?.headers);
            if (accept !== null) headers.set("accept", accept);
            const res = await fetch(input, { ...init, headers });
            served.push(res.headers.get("content-type")?.split(";")[0]);
            return res;
          };
        for (const accept of [null, "application/json"]) {
          const verifier = createDeliveryVerifier({ baseUrl: s.apiUrl, fetch: recording(accept) });
          await verifier.verify(delivery.headers, delivery.body);
          await expect(verifier.verify(delivery.headers, `${delivery.body} `)).rejects.toThrow(
            DeliveryVerificationError,
          );
        }
        expect(served).toEqual(["text/plain", "application/json"]);
      });
    } finally {
      await receiver.close();
    }
  });

  it("uses SIGNING_KEY_SEED when configured (nothing written to DATA_DIR), and is public even past loopback", async () => {
    await testDb.reset();
    const dataDir = tmpDir();
    const seed = Buffer.alloc(32, 7);
    const env = {
      DATA_DIR: dataDir,
      SIGNING_KEY_SEED: seed.toString("base64"),
      API_PUBLISH_ADDR: "0.0.0.0:3800",
      INSTANCE_TOKEN: "tok_read-api-test",
    };
    await withService(env, async (s) => {
      const res = await fetch(`${s.apiUrl}/public/streams/signing-key`);
      expect(res.status).toBe(200);
      expect(rawPublicKey(await res.text())).toEqual(Buffer.from(nacl.sign.keyPair.fromSeed(seed).publicKey));
      expect((await fetch(`${s.apiUrl}/v1/index/events`)).status).toBe(401);
      // Past loopback the read routes' cache headers turn private (a shared cache must not serve them).
      const authed = await fetch(`${s.apiUrl}/v1/index/events`, {
        headers: { authorization: "Bearer tok_read-api-test" },
      });
      expect(authed.status).toBe(200);
      expect(authed.headers.get("cache-control")).toMatch(/^private, /);
    });
    expect(existsSync(path.join(dataDir, "signing-key.json"))).toBe(false);
  });
});
