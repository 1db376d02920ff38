/**
 * runtime/dispatcher/trigger-match.ts: which triggers fire for a block's events and transactions
 * (wildcards, amounts, traits, sBTC peg prints, first trigger wins, chain webhooks start at the tip).
 */
import { describe, expect, it } from "vitest";
import type { ClarityJson, DecodedBlock } from "../../../runtime/chain/types.js";
import type { ChainWebhookTriggers } from "../../../runtime/dispatcher/trigger-events.js";
import {
  matchBlock,
  matchSweptConfirmed,
  type MatchContext,
  readPlan,
  traitCandidates,
} from "../../../runtime/dispatcher/trigger-match.js";
import { parseTriggers } from "../../../runtime/dispatcher/triggers.js";
import { block, ev, tx } from "../../support/decoded-chain.js";

const REGISTRY = "SN3R84XZYA63QS28932XQF3G1J8R9PC3W76P9CSQS.sbtc-registry";
const TOKEN = "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.alex-token";
const ctx: MatchContext = {
  sbtcRegistry: REGISTRY,
  implementsTrait: (c, t) => c === TOKEN && t === "sip-010",
};

const hook = (id: string, triggers: unknown[], startHeight = -1): ChainWebhookTriggers => ({
  id,
  triggers: parseTriggers(triggers),
  startHeight,
});

const stxXfer = (amount: string, sender = "SP1A", recipient = "SP2B") =>
  ev({
    type: "stx_transfer",
    sender,
    recipient,
    amount,
    assetIdentifier: "STX",
    payload: { sender, recipient, amount, memo: "" },
  });
const ftXfer = (amount: string) =>
  ev({
    type: "ft_transfer",
    contractId: TOKEN,
    assetIdentifier: `${TOKEN}::alex`,
    sender: "SP1A",
    recipient: "SP2B",
    amount,
  });
const print = (contractId: string, value: Record<string, ClarityJson>) =>
  ev({
    type: "print",
    contractId,
    topic: "print",
    payload: { contract_id: contractId, topic: "print", value, raw_value: "0x" },
  });

const fired = (hooks: ChainWebhookTriggers[], b: DecodedBlock) =>
  matchBlock(hooks, b, ctx).map((m) => `${m.webhookId}:${m.trigger}:${m.eventIndex}`);

describe("matchBlock", () => {
  it("stx_transfer with amount bounds and address patterns", () => {
    const b = block([tx()], [stxXfer("50"), stxXfer("150"), stxXfer("500", "SP9X")]);
    expect(fired([hook("w", [{ type: "stx_transfer", minAmount: "100", maxAmount: "200" }])], b)).toEqual([
      "w:stx_transfer:1",
    ]);
    expect(fired([hook("w", [{ type: "stx_transfer", sender: "SP9*" }])], b)).toEqual(["w:stx_transfer:2"]);
    expect(fired([hook("w", [{ type: "stx_transfer", recipient: "SP2B" }])], b)).toEqual([
      "w:stx_transfer:0",
      "w:stx_transfer:1",
      "w:stx_transfer:2",
    ]);
  });

  it("ft triggers by asset, amount and trait", () => {
    const b = block(
      [tx()],
      [
        ftXfer("10"),
        ev({ type: "ft_transfer", contractId: "SP1.other", assetIdentifier: "SP1.other::o", amount: "99" }),
      ],
    );
    expect(fired([hook("w", [{ type: "ft_transfer", trait: "sip-010" }])], b)).toEqual(["w:ft_transfer:0"]);
    expect(fired([hook("w", [{ type: "ft_transfer", assetIdentifier: "*::o" }])], b)).toEqual(["w:ft_transfer:1"]);
    expect(fired([hook("w", [{ type: "ft_transfer", minAmount: "11" }])], b)).toEqual(["w:ft_transfer:1"]);
    expect(fired([hook("w", [{ type: "ft_mint" }])], b)).toEqual([]);
  });

  it("contract_call is tx-level (event_index -1), matching contract, function wildcard and caller", () => {
    const call = tx({
      txType: "contract_call",
      contractId: TOKEN,
      functionName: "swap-x-for-y",
      sender: "SP1CALLER",
      functionArgs: ["0x01"],
    });
    const b = block([call], [ftXfer("5")]);
    expect(fired([hook("w", [{ type: "contract_call", functionName: "swap-*" }])], b)).toEqual(["w:contract_call:-1"]);
    expect(fired([hook("w", [{ type: "contract_call", caller: "SP1OTHER" }])], b)).toEqual([]);
    expect(fired([hook("w", [{ type: "contract_call", trait: "sip-010" }])], b)).toEqual(["w:contract_call:-1"]);
  });

  it("failed transactions and uncommitted events never fire", () => {
    const failed = tx({ txType: "contract_call", contractId: TOKEN, functionName: "f", status: "abort_by_response" });
    const b = block([failed], [{ ...ftXfer("5"), committed: false }]);
    expect(fired([hook("w", [{ type: "contract_call" }, { type: "ft_transfer" }])], b)).toEqual([]);
  });

  it("contract_deploy by deployer and contract name", () => {
    const deploy = tx({
      txType: "versioned_smart_contract",
      contractId: "SP1DEPLOYER.my-nft-v2",
      sender: "SP1DEPLOYER",
    });
    const b = block([deploy], []);
    expect(fired([hook("w", [{ type: "contract_deploy", contractName: "my-nft-*" }])], b)).toEqual([
      "w:contract_deploy:-1",
    ]);
    expect(fired([hook("w", [{ type: "contract_deploy", deployer: "SP2*" }])], b)).toEqual([]);
  });

  it("print_event by contract and topic (the node topic or the tuple's topic field)", () => {
    const b = block([tx()], [print("SP1.market", { topic: "list-item", a: "1" })]);
    expect(fired([hook("w", [{ type: "print_event", topic: "list-*" }])], b)).toEqual(["w:print_event:0"]);
    expect(fired([hook("w", [{ type: "print_event", contractId: "SP1.market", topic: "print" }])], b)).toEqual([
      "w:print_event:0",
    ]);
    expect(fired([hook("w", [{ type: "print_event", contractId: "SP2.*" }])], b)).toEqual([]);
  });

  it("stx_lock by locked address and amount", () => {
    const lock = ev({
      type: "stx_lock",
      sender: "SP1L",
      amount: "1000",
      payload: { locked_address: "SP1L", locked_amount: "1000", unlock_height: "9" },
    });
    const b = block([tx()], [lock]);
    expect(fired([hook("w", [{ type: "stx_lock", lockedAddress: "SP1L", minAmount: "1000" }])], b)).toEqual([
      "w:stx_lock:0",
    ]);
    expect(fired([hook("w", [{ type: "stx_lock", minAmount: "1001" }])], b)).toEqual([]);
  });

  it("sBTC peg triggers match the registry's prints by topic and fields", () => {
    const b = block(
      [tx()],
      [
        print(REGISTRY, { topic: "completed-deposit", amount: "5000", "bitcoin-txid": "0x01" }),
        print(REGISTRY, { topic: "withdrawal-create", amount: "700", sender: "SP1W", "request-id": "3" }),
        print(REGISTRY, { topic: "withdrawal-accept", "request-id": "3" }),
        print(REGISTRY, { topic: "withdrawal-reject", "request-id": "4" }),
        print("SP1.fake-registry", { topic: "completed-deposit", amount: "5000" }),
      ],
    );
    const all = hook("w", [
      { type: "sbtc_deposit" },
      { type: "sbtc_withdrawal_create" },
      { type: "sbtc_withdrawal_accept" },
      { type: "sbtc_withdrawal_reject" },
      { type: "sbtc_withdrawal_swept_confirmed" },
    ]);
    expect(fired([all], b)).toEqual([
      "w:sbtc_deposit:0",
      "w:sbtc_withdrawal_create:1",
      "w:sbtc_withdrawal_accept:2",
      "w:sbtc_withdrawal_reject:3",
    ]);
    expect(fired([hook("w", [{ type: "sbtc_deposit", minAmount: "5001" }])], b)).toEqual([]);
    expect(fired([hook("w", [{ type: "sbtc_withdrawal_create", sender: "SP1W" }])], b)).toEqual([
      "w:sbtc_withdrawal_create:1",
    ]);
    expect(fired([hook("w", [{ type: "sbtc_withdrawal_reject", requestId: "3" }])], b)).toEqual([]);
  });

  it("one delivery per webhook and event: the first matching trigger in list order wins", () => {
    const b = block([tx()], [print(REGISTRY, { topic: "completed-deposit", amount: "1" })]);
    expect(fired([hook("w", [{ type: "print_event" }, { type: "sbtc_deposit" }])], b)).toEqual(["w:print_event:0"]);
    expect(fired([hook("w", [{ type: "sbtc_deposit" }, { type: "print_event" }])], b)).toEqual(["w:sbtc_deposit:0"]);
  });

  it("chain webhooks start at the tip they were created at", () => {
    const b = block([tx()], [stxXfer("1")], 10);
    expect(fired([hook("old", [{ type: "stx_transfer" }], 9), hook("new", [{ type: "stx_transfer" }], 10)], b)).toEqual(
      ["old:stx_transfer:0"],
    );
  });

  it("block order: a tx's tx-level match, then its events, tx by tx", () => {
    const t0 = tx({ txId: "0x01", txIndex: 0, txType: "contract_call", contractId: TOKEN, functionName: "f" });
    const t1 = tx({ txId: "0x02", txIndex: 1, txType: "contract_call", contractId: TOKEN, functionName: "f" });
    const b = block(
      [t0, t1],
      [
        { ...ftXfer("1"), txId: "0x01", txIndex: 0 },
        { ...ftXfer("2"), txId: "0x02", txIndex: 1 },
      ],
    );
    expect(fired([hook("w", [{ type: "contract_call" }, { type: "ft_transfer" }])], b)).toEqual([
      "w:contract_call:-1",
      "w:ft_transfer:0",
      "w:contract_call:-1",
      "w:ft_transfer:1",
    ]);
  });
});

describe("matchSweptConfirmed", () => {
  it("fires for an accepted withdrawal's print only on webhooks that asked, created before it", () => {
    const accept = print(REGISTRY, { topic: "withdrawal-accept", "request-id": "3" });
    const hooks = [
      hook("a", [{ type: "sbtc_withdrawal_swept_confirmed" }], 5),
      hook("b", [{ type: "sbtc_withdrawal_swept_confirmed", requestId: "4" }], 5),
      hook("c", [{ type: "sbtc_withdrawal_accept" }], 5),
      hook("late", [{ type: "sbtc_withdrawal_swept_confirmed" }], 10),
    ];
    expect(matchSweptConfirmed(hooks, accept, 10, ctx)).toEqual([
      { webhookId: "a", trigger: "sbtc_withdrawal_swept_confirmed" },
    ]);
    expect(matchSweptConfirmed(hooks, print(REGISTRY, { topic: "withdrawal-reject" }), 10, ctx)).toEqual([]);
  });
});

describe("traitCandidates and readPlan", () => {
  it("lists the contracts a trait trigger could test", () => {
    const call = tx({ txType: "contract_call", contractId: "SP1.c", functionName: "f" });
    const b = block([call], [ftXfer("1"), print("SP1.p", {})]);
    expect([...traitCandidates([hook("w", [{ type: "ft_transfer", trait: "sip-010" }])], b)]).toEqual([TOKEN]);
    expect(
      [
        ...traitCandidates(
          [
            hook("w", [
              { type: "contract_call", trait: "sip-010" },
              { type: "print_event", trait: "sip-009" },
            ]),
          ],
          b,
        ),
      ].sort(),
    ).toEqual(["SP1.c", "SP1.p"]);
    expect([...traitCandidates([hook("w", [{ type: "ft_transfer" }])], b)]).toEqual([]);
  });

  it("reads the event types and tx level a replay needs", () => {
    expect(
      readPlan(parseTriggers([{ type: "print_event" }, { type: "sbtc_deposit" }, { type: "contract_call" }])),
    ).toEqual({
      eventTypes: ["print"],
      txLevel: true,
    });
  });
});
