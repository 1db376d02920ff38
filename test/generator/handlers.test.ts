/**
 * Compiled handlers (DESIGN.md §3): the generated modules, run on hand-built contexts and on
 * recorded prints (../shared/fixtures when present), return the row operations the built-in
 * specs promise.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../generator/repo-paths.js";
import type { RowOp, SubgraphModule } from "../../runtime/subgraphs/types.js";
import {
  DEVNET_CONFIG,
  decodePrint,
  makeContext,
  printEvent,
  subgraphNamed,
  utf8Hex,
} from "../support/handler-context.js";

const SENDER = "ST1SJ3DTE5DN7X54YDH5D64R3BCB6A2AG2ZQ8YPD5";
const RECIPIENT = "ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG";
const TOKEN = "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token::tok";
const FIXTURES = join(REPO_ROOT, "..", "shared", "fixtures");

describe("asset-holdings", () => {
  const holdings = subgraphNamed("asset-holdings");

  it("an ft_transfer is two increments with signed amounts", () => {
    const ctx = makeContext({
      event: { type: "ft_transfer", asset_identifier: TOKEN, sender: SENDER, recipient: RECIPIENT, amount: "250" },
    });
    expect(holdings.handlers.ftXfer(ctx)).toEqual<RowOp[]>([
      {
        kind: "increment",
        table: "holdings",
        key: { kind: "ft", asset_identifier: TOKEN, holder: SENDER },
        deltas: { amount: "-250" },
      },
      {
        kind: "increment",
        table: "holdings",
        key: { kind: "ft", asset_identifier: TOKEN, holder: RECIPIENT },
        deltas: { amount: "250" },
      },
    ]);
  });

  it("keeps amounts above 2^53 exact", () => {
    const amount = "340282366920938463463374607431768211455";
    const ops = holdings.handlers.stxXfer(
      makeContext({
        event: { type: "stx_transfer", asset_identifier: "STX", sender: SENDER, recipient: RECIPIENT, amount },
      }),
    );
    expect(ops.map((op) => op.kind === "increment" && op.deltas.amount)).toEqual([`-${amount}`, amount]);
  });

  it("STX sources use kind stx and asset STX; mints add to the recipient, burns take from the sender", () => {
    const stx = (type: "stx_mint" | "stx_burn", amount: string) =>
      makeContext({ event: { type, asset_identifier: "STX", sender: SENDER, recipient: RECIPIENT, amount } });
    expect(holdings.handlers.stxMint(stx("stx_mint", "5"))).toEqual([
      {
        kind: "increment",
        table: "holdings",
        key: { kind: "stx", asset_identifier: "STX", holder: RECIPIENT },
        deltas: { amount: "5" },
      },
    ]);
    expect(holdings.handlers.stxBurn(stx("stx_burn", "7"))).toEqual([
      {
        kind: "increment",
        table: "holdings",
        key: { kind: "stx", asset_identifier: "STX", holder: SENDER },
        deltas: { amount: "-7" },
      },
    ]);
    const ft = (type: "ft_mint" | "ft_burn") =>
      makeContext({ event: { type, asset_identifier: TOKEN, sender: SENDER, recipient: RECIPIENT, amount: "9" } });
    expect(holdings.handlers.ftMint(ft("ft_mint"))[0]).toMatchObject({
      key: { kind: "ft", holder: RECIPIENT },
      deltas: { amount: "9" },
    });
    expect(holdings.handlers.ftBurn(ft("ft_burn"))[0]).toMatchObject({
      key: { kind: "ft", holder: SENDER },
      deltas: { amount: "-9" },
    });
  });

  it("a fee is taken from its payer and a matured miner reward credited to its recipient, in STX", () => {
    const fee = makeContext({
      event: { type: "tx_fee", event_index: -1, asset_identifier: "STX", sender: SENDER, amount: "180" },
    });
    expect(holdings.handlers.stxFee(fee)).toEqual<RowOp[]>([
      {
        kind: "increment",
        table: "holdings",
        key: { kind: "stx", asset_identifier: "STX", holder: SENDER },
        deltas: { amount: "-180" },
      },
    ]);
    const reward = makeContext({
      event: { type: "miner_reward", event_index: -1, asset_identifier: "STX", recipient: RECIPIENT, amount: "1027" },
      tx: { id: "", sender: null },
    });
    expect(holdings.handlers.minerReward(reward)).toEqual<RowOp[]>([
      {
        kind: "increment",
        table: "holdings",
        key: { kind: "stx", asset_identifier: "STX", holder: RECIPIENT },
        deltas: { amount: "1027" },
      },
    ]);
  });

  it("declares the six sources of SPEC.md, plus fees and miner rewards for STX account balances", () => {
    expect(Object.fromEntries(Object.entries(holdings.sources).map(([name, s]) => [name, s.type]))).toEqual({
      ftBurn: "ft_burn",
      ftMint: "ft_mint",
      ftXfer: "ft_transfer",
      stxBurn: "stx_burn",
      stxMint: "stx_mint",
      stxXfer: "stx_transfer",
      stxFee: "tx_fee",
      minerReward: "miner_reward",
    });
  });
});

describe("bns-names", () => {
  const bns = subgraphNamed("bns-names");
  const contract = DEVNET_CONFIG.bnsContractId;
  const lifecycle = (topic: string, owner: string) => ({
    topic,
    owner,
    id: "1",
    name: { name: utf8Hex("alice"), namespace: utf8Hex("btc") },
  });

  it("a new-name print with buffer name and namespace upserts fqn alice.btc", () => {
    const ops = bns.handlers.bns(makeContext({ event: printEvent(contract, lifecycle("new-name", SENDER)) }));
    expect(ops).toEqual<RowOp[]>([
      {
        kind: "upsert",
        table: "names",
        key: ["fqn"],
        values: { fqn: "alice.btc", name: "alice", namespace: "btc", owner: SENDER, topic: "new-name" },
      },
    ]);
  });

  it("burn-name leaves owner null", () => {
    const ops = bns.handlers.bns(makeContext({ event: printEvent(contract, lifecycle("burn-name", "")) }));
    expect(ops).toEqual([
      expect.objectContaining({
        values: { fqn: "alice.btc", name: "alice", namespace: "btc", owner: null, topic: "burn-name" },
      }),
    ]);
  });

  it("ignores prints that are not name lifecycle steps", () => {
    expect(
      bns.handlers.bns(makeContext({ event: printEvent(contract, { a: "list-in-ustx", id: "2", price: "5" }) })),
    ).toEqual([]);
    expect(bns.handlers.bns(makeContext({ event: printEvent(contract, "0x00") }))).toEqual([]);
  });

  const simnet = join(FIXTURES, "simnet", "simnet-bns-v2-sbtc-events.json");
  it.skipIf(!existsSync(simnet))("replays the simnet BNS-V2 prints into the final owners", () => {
    const recording = JSON.parse(readFileSync(simnet, "utf8")) as {
      calls: {
        contract_id: string;
        events: { event: string; data: { contract_identifier: string; raw_value: string } }[];
      }[];
    };
    const table = new Map<string, Record<string, unknown>>();
    for (const call of recording.calls) {
      for (const event of call.events) {
        if (event.event !== "print_event" || event.data.contract_identifier !== contract) continue;
        const payload = decodePrint(event.data.raw_value);
        for (const op of bns.handlers.bns(makeContext({ event: printEvent(contract, payload) }))) {
          if (op.kind !== "upsert") throw new Error(`unexpected ${op.kind}`);
          table.set(String(op.values.fqn), { ...table.get(String(op.values.fqn)), ...op.values });
        }
      }
    }
    expect(Object.fromEntries([...table].map(([fqn, row]) => [fqn, [row.owner, row.topic]]))).toEqual({
      "name1.namespacetest": ["ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC", "renew-name"],
      "name2.namespacetest": ["ST1SJ3DTE5DN7X54YDH5D64R3BCB6A2AG2ZQ8YPD5", "transfer-name"],
    });
  });
});

describe("sbtc-flows", () => {
  const sbtc = subgraphNamed("sbtc-flows");
  const registry = DEVNET_CONFIG.sbtcRegistryContractId;

  it("inserts one flows row per registry print, null where the topic has no such field", () => {
    const payload = {
      topic: "withdrawal-create",
      amount: "22500",
      sender: SENDER,
      "request-id": "1",
      "block-height": "137",
      "max-fee": "3000",
      recipient: { version: "0x00", hashbytes: "0x00" },
    };
    expect(sbtc.handlers.registry(makeContext({ event: printEvent(registry, payload) }))).toEqual<RowOp[]>([
      {
        kind: "insert",
        table: "flows",
        values: {
          topic: "withdrawal-create",
          amount: "22500",
          sender: SENDER,
          request_id: "1",
          burn_height: null,
          bitcoin_txid: null,
        },
      },
    ]);
  });

  it("skips a registry print without a topic", () => {
    expect(sbtc.handlers.registry(makeContext({ event: printEvent(registry, "0x696e766f696365") }))).toEqual([]);
  });

  it("inserts a transfers row per sBTC token transfer, with its event_index and no memo yet", () => {
    const ctx = makeContext({
      event: {
        type: "ft_transfer",
        event_index: 7,
        asset_identifier: DEVNET_CONFIG.sbtcAssetIdentifier,
        sender: SENDER,
        recipient: RECIPIENT,
        amount: "1000",
        payload: { sender: SENDER, recipient: RECIPIENT, amount: "1000" },
      },
    });
    expect(sbtc.handlers.tokenTransfer(ctx)).toEqual([
      {
        kind: "insert",
        table: "transfers",
        values: { sender: SENDER, recipient: RECIPIENT, amount: "1000", event_index: 7 },
      },
    ]);
  });

  it("a buffer printed by sbtc-token sets the memo of the transfer just before it in the same transaction", () => {
    const token = DEVNET_CONFIG.sbtcTokenContractId;
    const memo = decodePrint("0x020000000a696e766f6963652d3432"); // (print 0x696e766f6963652d3432)
    expect(memo).toBe(utf8Hex("invoice-42"));
    const ctx = makeContext({ event: printEvent(token, memo, 8), block: { height: 30 } });
    expect(sbtc.handlers.tokenMemo(ctx)).toEqual<RowOp[]>([
      {
        kind: "update",
        table: "transfers",
        key: { _tx_id: ctx.tx.id, _block_height: 30, event_index: "7" },
        set: { memo: "0x696e766f6963652d3432" },
      },
    ]);
    // An empty memo buffer is still a memo; at event_index 0 the key (-1) matches no row.
    expect(sbtc.handlers.tokenMemo(makeContext({ event: printEvent(token, "0x", 0) }))).toMatchObject([
      { kind: "update", key: { event_index: "-1" }, set: { memo: "0x" } },
    ]);
  });

  it("ignores sbtc-token prints that are not a buffer", () => {
    const token = DEVNET_CONFIG.sbtcTokenContractId;
    for (const payload of [{ topic: "x", memo: "0x01" }, ["0x01"], "12", true, null, "", "plain text"]) {
      expect(sbtc.handlers.tokenMemo(makeContext({ event: printEvent(token, payload, 3) })), String(payload)).toEqual(
        [],
      );
    }
  });

  const observerDir = join(FIXTURES, "observer", "sbtc");
  it.skipIf(!existsSync(observerDir))("decodes every recorded registry print into a flows row", () => {
    const rows: Record<string, unknown>[] = [];
    for (const file of readdirSync(observerDir).sort()) {
      const block = JSON.parse(readFileSync(join(observerDir, file), "utf8")) as {
        events: { contract_event: { contract_identifier: string; raw_value: string } }[];
      };
      for (const event of block.events) {
        let payload: ReturnType<typeof decodePrint>;
        try {
          payload = decodePrint(event.contract_event.raw_value);
        } catch {
          continue; // the hand-made invalid event of rotate-keys-and-invalid-event.json
        }
        const ctx = makeContext({ event: printEvent(event.contract_event.contract_identifier, payload) });
        for (const op of sbtc.handlers.registry(ctx)) if (op.kind === "insert") rows.push({ file, ...op.values });
      }
    }
    const byFile = Object.fromEntries(rows.map(({ file, ...values }) => [file, values]));
    expect(byFile["completed-deposit-event.json"]).toEqual({
      topic: "completed-deposit",
      amount: "123654789",
      sender: null,
      request_id: null,
      burn_height: null,
      bitcoin_txid: "0x0000000000000000000000000000000000000000000000000000000000000000",
    });
    expect(byFile["withdrawal-create-event.json"]).toMatchObject({
      topic: "withdrawal-create",
      sender: "SN2V7WTJ7BHR03MPHZ1C9A9ZR6NZGR4WM8HT4V67Y",
      request_id: "1",
    });
    expect(byFile["withdrawal-accept-event.json"]).toMatchObject({ topic: "withdrawal-accept", request_id: "1" });
    expect(byFile["withdrawal-reject-event.json"]).toMatchObject({ topic: "withdrawal-reject", request_id: "2" });
    expect(byFile["rotate-keys-event.json"]).toMatchObject({ topic: "key-rotation", amount: null });
    expect(rows).toHaveLength(7);
  });
});

describe("contract-deployments", () => {
  const deployments = subgraphNamed("contract-deployments");
  const deploy = (status: string) =>
    makeContext({
      event: { type: "contract_deploy", event_index: -1, contract_id: `${SENDER}.my-token` },
      tx: { type: "smart_contract", contract_id: `${SENDER}.my-token`, sender: SENDER, status, id: "0xdd" },
      block: { height: 4321 },
    });

  it("inserts a contracts row for a successful deploy", () => {
    expect(deployments.handlers.deploy(deploy("success"))).toEqual([
      {
        kind: "insert",
        table: "contracts",
        values: {
          name: "my-token",
          deployer: SENDER,
          contract_id: `${SENDER}.my-token`,
          deploy_block: 4321,
          deploy_tx_id: "0xdd",
        },
      },
    ]);
  });

  it("ignores a failed deploy", () => {
    expect(deployments.handlers.deploy(deploy("abort_by_response"))).toEqual([]);
  });
});

describe("golden all-operations module", () => {
  mkdirSync(join(REPO_ROOT, ".tmp"), { recursive: true });
  const scratch = mkdtempSync(join(REPO_ROOT, ".tmp", "golden-routes-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const load = async (): Promise<SubgraphModule> => {
    const path = join(scratch, "routes.ts");
    writeFileSync(
      path,
      readFileSync(join(REPO_ROOT, "test", "golden", "all-operations", "expected", "routes.ts.txt"), "utf8"),
    );
    return ((await import(path)) as { subgraph: SubgraphModule }).subgraph;
  };
  const contract = DEVNET_CONFIG.bnsContractId;

  it("upsert, update and delete follow their when: conditions", async () => {
    const market = (await load()).handlers.market;
    const listed = market(
      makeContext({
        event: printEvent(contract, { a: "list-in-ustx", id: "2", price: "5000000", commission: null }),
        block: { time: 1_767_225_600 },
      }),
    );
    expect(listed).toEqual([
      {
        kind: "upsert",
        table: "listings",
        key: ["name_id"],
        values: {
          name_id: "2",
          price: "5000000",
          commission: null,
          listed_at: "2026-01-01T00:00:00.000Z",
          active: true,
          raw: { a: "list-in-ustx", id: "2", price: "5000000", commission: null },
        },
      },
    ]);
    expect(market(makeContext({ event: printEvent(contract, { a: "unlist-in-ustx", id: "2" }) }))).toEqual([
      { kind: "update", table: "listings", key: { name_id: "2" }, set: { active: false } },
    ]);
    expect(market(makeContext({ event: printEvent(contract, { a: "buy-in-ustx", id: "2" }) }))).toEqual([
      { kind: "delete", table: "listings", key: { name_id: "2" } },
    ]);
  });

  it("increment carries literal deltas, double negation and interpolated values", async () => {
    const module = await load();
    expect(module.startBlock).toBe(150000);
    expect(
      module.handlers.buys(
        makeContext({ event: { type: "contract_call", event_index: -1 }, tx: { function_name: "buy-in-ustx" } }),
      ),
    ).toEqual([
      {
        kind: "increment",
        table: "sellers",
        key: { seller: "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM" },
        deltas: { sales: "1", volume: "0" },
        values: { last_function: "USTX" },
      },
    ]);
    expect(
      module.handlers.fees(
        makeContext({
          event: { type: "stx_transfer", sender: "SPA", recipient: "SPB", amount: "1000" },
          block: { height: 7 },
        }),
      ),
    ).toEqual([
      {
        kind: "increment",
        table: "sellers",
        key: { seller: "spb" },
        deltas: { sales: "0", volume: "1000" },
        values: { last_function: "fee from ${sender} SPA at 7" },
      },
    ]);
  });
});
