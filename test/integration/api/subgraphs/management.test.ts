/**
 * Run-time subgraph management over HTTP (SPEC.md "Write and management routes"):
 * deploy a YAML or JSON spec (validate → generate → migrate → backfill from
 * stored blocks, then live), redeploys (unchanged, additive in place, breaking → 409 unless
 * `?replace=true`), reindex, delete, the error codes, and the token. Expected rows are computed
 * from the simulated payloads.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { RawRequest } from "../../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { postObserver, startTestService } from "../../../support/service.js";
import { canonicalBlocks, expectedContracts, type RawBlock } from "../../../support/subgraph-expect.js";

const TOKEN = "tok_subgraphs-management";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;
const json = async (res: Response): Promise<Json> => res.json();

const SPEC = `name: stx-moves
version: 1.0.0
description: STX transfers and per-sender totals.
sources:
  xfer:
    type: stx_transfer
  tokens:
    type: ft_transfer
    trait: sip-010
  nfts:
    type: ft_transfer
    trait: sip-009
tables:
  moves:
    columns:
      sender: { type: principal, attributes: [indexed] }
      recipient: { type: principal }
      amount: { type: uint }
  totals:
    columns:
      sender: { type: principal }
      sent: { type: uint }
      moves: { type: uint }
    uniqueKeys:
      - [sender]
  sip10:
    columns:
      asset: { type: text }
      amount: { type: uint }
handlers:
  xfer:
    - insert: moves
      values:
        sender: \${event.sender}
        recipient: \${event.recipient}
        amount: \${event.amount}
    - increment: totals
      key:
        sender: \${event.sender}
      add:
        sent: \${event.amount}
        moves: 1
  tokens:
    - insert: sip10
      values:
        asset: \${event.asset_identifier}
        amount: \${event.amount}
  nfts:
    - insert: sip10
      values:
        asset: wrong
        amount: \${event.amount}
`;

const SIP010_FUNCTIONS = [
  "transfer",
  "get-name",
  "get-symbol",
  "get-decimals",
  "get-balance",
  "get-total-supply",
  "get-token-uri",
];

/** What stx-moves must hold after `blocks` (canonical, in order). */
function expectedMoves(blocks: RawBlock[]) {
  const moves: string[] = [];
  const totals = new Map<string, [bigint, bigint]>();
  const sip010 = new Set<string>();
  const tokenMoves: string[] = [];
  for (const b of blocks) {
    for (const t of b.transactions) {
      const fns = (t.contract_interface?.functions ?? []).map((f: { name: string }) => f.name);
      if (t.status === "success" && SIP010_FUNCTIONS.every((n) => fns.includes(n))) sip010.add(t.txid);
    }
  }
  for (const b of blocks) {
    for (const e of b.events) {
      if (!e.committed) continue;
      if (e.type === "stx_transfer_event") {
        const x = e.stx_transfer_event;
        moves.push(JSON.stringify([x.sender, x.recipient, x.amount]));
        const [sent, n] = totals.get(x.sender) ?? [0n, 0n];
        totals.set(x.sender, [sent + BigInt(x.amount), n + 1n]);
      }
      if (e.type === "ft_transfer_event")
        tokenMoves.push(JSON.stringify([e.ft_transfer_event.asset_identifier, e.ft_transfer_event.amount]));
    }
  }
  // Only transfers of tokens whose deployed interface is SIP-010 match `trait: sip-010`.
  const sip010Contracts = new Set(
    expectedContracts(blocks)
      .filter((c) => sip010.has(c[4]))
      .map((c) => c[0]),
  );
  const matching = tokenMoves.filter((m) => sip010Contracts.has(JSON.parse(m)[0].split("::")[0]));
  return {
    moves: moves.sort(),
    totals,
    tokenMoves: matching.sort(),
    sip010Deploys: sip010.size,
    allTokenMoves: tokenMoves.length,
  };
}

describe("subgraph management API", () => {
  let testDb: TestDb;
  let service: Service;
  let requests: RawRequest[];
  let later: RawRequest[];

  const api = (path: string, init: RequestInit = {}, token: string | null = TOKEN) =>
    fetch(service.apiUrl + path, {
      ...init,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) },
    });
  const deploy = (body: string, type = "application/yaml", query = "") =>
    api(`/api/subgraphs${query}`, { method: "POST", headers: { "content-type": type }, body });
  const rows = async (sql: string) => (await testDb.db.query<Record<string, string>>(sql)).rows;
  const readMoves = async () =>
    (await rows("SELECT sender, recipient, amount::text AS amount FROM sg_stx_moves.moves"))
      .map((r) => JSON.stringify([r.sender, r.recipient, r.amount]))
      .sort();

  beforeAll(async () => {
    testDb = await createTestDb();
    const { payloads } = simulateChain({ seed: "management", blocks: 90, eventsPerBlock: 20, forkRate: 0.1 });
    const all = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    const cut = all.findIndex((r) => r.path === "/new_block" && JSON.parse(r.body).block_height === 60);
    requests = all.slice(0, cut);
    later = all.slice(cut);
    service = await startTestService(testDb.db, { NETWORK: "devnet", INSTANCE_TOKEN: TOKEN });
    for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
    await service.idle();
  });
  afterAll(async () => {
    await service?.stop();
    await testDb?.drop();
  });

  it("refuses a deploy without the instance token", async () => {
    const res = await api(
      "/api/subgraphs",
      { method: "POST", headers: { "content-type": "application/yaml" }, body: SPEC },
      null,
    );
    expect(res.status).toBe(401);
    const reindex = await api("/api/subgraphs/asset-holdings/reindex", { method: "POST" }, "wrong-token");
    expect(reindex.status).toBe(401);
    expect(await rows("SELECT name FROM control.subgraphs WHERE name = 'stx-moves'")).toEqual([]);
  });

  it("answers 400 SPEC_INVALID with every error and its location, and changes nothing", async () => {
    const bad = SPEC.replace("${event.recipient}", "${event.recipent}").replace(
      "sent: ${event.amount}",
      "sent: ${event.amout}",
    );
    const res = await deploy(bad);
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.code).toBe("SPEC_INVALID");
    expect(body.details.errors.length).toBe(2);
    for (const e of body.details.errors) {
      expect(e).toMatchObject({
        file: "request.yaml",
        line: expect.any(Number),
        col: expect.any(Number),
        path: expect.any(String),
        message: expect.any(String),
      });
    }
    expect(
      body.details.errors.map((e: { path: string; message: string }) => `${e.path}: ${e.message}`).join("\n"),
    ).toMatch(/handlers\.xfer\.0\.values\.recipient: .*recipent[\s\S]*handlers\.xfer\.1\.add\.sent: .*amout/);
    expect(await rows("SELECT name FROM control.subgraphs WHERE name = 'stx-moves'")).toEqual([]);
    expect(await rows("SELECT nspname FROM pg_namespace WHERE nspname = 'sg_stx_moves'")).toEqual([]);
  });

  it("deploys a YAML spec, backfills it from stored blocks, then indexes live blocks", async () => {
    const res = await deploy(SPEC);
    expect(res.status).toBe(202);
    const body = await json(res);
    expect(body).toMatchObject({ name: "stx-moves", version: "1.0.0", action: "created", status: "backfilling" });
    expect(body.schemaHash).toMatch(/^[0-9a-f]{64}$/);
    await service.subgraphs.idle();
    const stored = canonicalBlocks(requests);
    const progress = await service.subgraphs.progress("stx-moves");
    expect(progress).toMatchObject({
      status: "ready",
      subgraphHeight: stored[stored.length - 1].block_height,
      blocksDone: stored.length,
      error: null,
    });
    let want = expectedMoves(stored);
    expect(await readMoves()).toEqual(want.moves);

    for (const r of later) await postObserver(service.observerUrl, r.path, r.body);
    await service.idle();
    const all = canonicalBlocks([...requests, ...later]);
    want = expectedMoves(all);
    expect(await readMoves()).toEqual(want.moves);
    const totals = await rows("SELECT sender, sent::text AS sent, moves::text AS moves FROM sg_stx_moves.totals");
    expect(new Map(totals.map((r) => [r.sender, [BigInt(r.sent), BigInt(r.moves)]]))).toEqual(want.totals);
    // trait: sip-010 matches the simulator's SIP-010 tokens; sip-009 matches no fungible token.
    expect(want.sip010Deploys).toBeGreaterThan(0);
    expect(want.tokenMoves.length).toBeGreaterThan(0);
    expect(want.tokenMoves.length).toBeLessThan(want.allTokenMoves);
    const sip10 = await rows("SELECT asset, amount::text AS amount FROM sg_stx_moves.sip10");
    expect(sip10.map((r) => JSON.stringify([r.asset, r.amount])).sort()).toEqual(want.tokenMoves);
    expect(sip10.some((r) => r.asset === "wrong")).toBe(false);
    expect(service.subgraphs.get("stx-moves")?.kind).toBe("deployed");
  });

  it("redeploys: unchanged → 200, additive → migrated in place, breaking → 409 unless replace=true", async () => {
    const same = await deploy(SPEC);
    expect(same.status).toBe(200);
    expect((await json(same)).action).toBe("unchanged");

    const before = await readMoves();
    const additive = SPEC.replace("version: 1.0.0", "version: 1.1.0").replace(
      "      amount: { type: uint }\n  totals",
      "      amount: { type: uint }\n      note: { type: text, attributes: [nullable, searchable] }\n  totals",
    );
    const migrated = await deploy(additive);
    expect(migrated.status).toBe(200);
    expect(await json(migrated)).toMatchObject({ action: "migrated", version: "1.1.0", status: "ready" });
    expect(
      await rows(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'sg_stx_moves' AND table_name = 'moves' AND column_name = 'note'",
      ),
    ).toHaveLength(1);
    expect(await readMoves()).toEqual(before);

    const breaking = additive
      .replace("version: 1.1.0", "version: 2.0.0")
      .replace("sent: { type: uint }", "sent: { type: int }");
    const refused = await deploy(breaking);
    expect(refused.status).toBe(409);
    const refusal = await json(refused);
    expect(refusal.code).toBe("SUBGRAPH_EXISTS");
    expect(refusal.details.breaking).toEqual(["column totals.sent changed type uint → int"]);

    const rebuilt = await deploy(breaking, "application/yaml", "?replace=true");
    expect(rebuilt.status).toBe(202);
    expect((await json(rebuilt)).action).toBe("rebuilt");
    await service.subgraphs.idle();
    expect((await service.subgraphs.progress("stx-moves"))?.status).toBe("ready");
    expect(await readMoves()).toEqual(before);
    expect(
      await rows(
        "SELECT data_type FROM information_schema.columns WHERE table_schema = 'sg_stx_moves' AND table_name = 'totals' AND column_name = 'sent'",
      ),
    ).toEqual([{ data_type: "numeric" }]);
  });

  it("deploys a JSON spec and reports JSON errors against the re-serialized body", async () => {
    const spec = {
      name: "big-stx",
      version: "1.0.0",
      description: "STX transfers of 1000 or more.",
      sources: { xfer: { type: "stx_transfer", minAmount: "1000" } },
      tables: { big: { columns: { amount: { type: "uint" }, sender: { type: "principal" } } } },
      handlers: { xfer: [{ insert: "big", values: { amount: "${event.amount}", sender: "${event.sender}" } }] },
    };
    const ok = await deploy(JSON.stringify(spec), "application/json");
    expect([200, 202]).toContain(ok.status);
    await service.subgraphs.idle();
    const blocks = canonicalBlocks([...requests, ...later]);
    let want = 0;
    for (const b of blocks)
      for (const e of b.events)
        if (e.committed && e.type === "stx_transfer_event" && BigInt(e.stx_transfer_event.amount) >= 1000n) want++;
    expect(Number((await rows("SELECT count(*) AS n FROM sg_big_stx.big"))[0].n)).toBe(want);

    const bad = await deploy(JSON.stringify({ ...spec, name: "Bad Name" }), "application/json");
    expect(bad.status).toBe(400);
    const err = await json(bad);
    expect(err.details.errors[0]).toMatchObject({ file: "request.json", line: 2, path: "name" });
  });

  it("reindexes: 202, rebuilds the same rows; 409 OPERATION_IN_PROGRESS while one runs; 404 for an unknown name", async () => {
    const before = await readMoves();
    const res = await api("/api/subgraphs/stx-moves/reindex", { method: "POST" });
    expect(res.status).toBe(202);
    expect((await json(res)).name).toBe("stx-moves");
    await service.subgraphs.idle();
    expect(await readMoves()).toEqual(before);
    expect((await service.subgraphs.progress("stx-moves"))?.status).toBe("ready");

    // An operation recorded as running (by this or another process) blocks a second one.
    await testDb.db.query("UPDATE control.subgraphs SET status = 'reindexing' WHERE name = 'stx-moves'");
    const busy = await api("/api/subgraphs/stx-moves/reindex", { method: "POST" });
    expect(busy.status).toBe(409);
    expect((await json(busy)).code).toBe("OPERATION_IN_PROGRESS");
    await testDb.db.query("UPDATE control.subgraphs SET status = 'ready' WHERE name = 'stx-moves'");

    const unknown = await api("/api/subgraphs/nope/reindex", { method: "POST" });
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).code).toBe("SUBGRAPH_NOT_FOUND");
  });

  it("protects the built-ins: deploying over one → 409 SUBGRAPH_EXISTS, deleting one → 409", async () => {
    const res = await deploy(SPEC.replace("name: stx-moves", "name: asset-holdings"));
    expect(res.status).toBe(409);
    expect((await json(res)).code).toBe("SUBGRAPH_EXISTS");
    const del = await api("/api/subgraphs/asset-holdings", { method: "DELETE" });
    expect(del.status).toBe(409);
    expect((await json(del)).code).toBe("BUILT_IN_SUBGRAPH");
  });

  it("deletes a deployed subgraph: 204, tables and definition gone, then 404", async () => {
    const res = await api("/api/subgraphs/stx-moves", { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await rows("SELECT nspname FROM pg_namespace WHERE nspname = 'sg_stx_moves'")).toEqual([]);
    expect(await service.subgraphs.progress("stx-moves")).toBeNull();
    expect(service.subgraphs.get("stx-moves")).toBeUndefined();
    const again = await api("/api/subgraphs/stx-moves", { method: "DELETE" });
    expect(again.status).toBe(404);
  });
});
