/**
 * Which subgraphs a backfill may sum in SQL (generator/sum-replay.ts): only unconditional
 * increments of event fields into text keys and signed numeric columns, from unfiltered sources
 * on stored events, fees or miner rewards. Each refusal below changes one thing of a summable spec.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sumReplayOf } from "../../generator/sum-replay.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { modelFromYaml } from "../support/spec-fixture.js";

const BASE = `name: sums
version: 1.0.0
description: Balances.
sources:
  xfer:
    type: ft_transfer
  fee:
    type: tx_fee
tables:
  balances:
    columns:
      kind:
        type: text
      holder:
        type: principal
      amount:
        type: int
    uniqueKeys:
      - [kind, holder]
handlers:
  xfer:
    - increment: balances
      key:
        kind: ft
        holder: \${event.sender}
      add:
        amount: \${-event.amount}
    - increment: balances
      key:
        kind: ft
        holder: \${event.recipient}
      add:
        amount: \${event.amount}
  fee:
    - increment: balances
      key:
        kind: stx
        holder: \${event.sender}
      add:
        amount: \${-event.amount}
`;

describe("sumReplayOf", () => {
  it("describes every increment of a summable spec, in handler order", () => {
    expect(sumReplayOf(modelFromYaml(BASE))).toEqual([
      {
        source: "xfer",
        table: "balances",
        key: { kind: { literal: "ft" }, holder: { field: "sender" } },
        deltas: { amount: { field: "amount", negate: true } },
      },
      {
        source: "xfer",
        table: "balances",
        key: { kind: { literal: "ft" }, holder: { field: "recipient" } },
        deltas: { amount: { field: "amount" } },
      },
      {
        source: "fee",
        table: "balances",
        key: { kind: { literal: "stx" }, holder: { field: "sender" } },
        deltas: { amount: { field: "amount", negate: true } },
      },
    ]);
  });

  it("covers the built-in asset-holdings spec", () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, "specs/asset-holdings.yaml"), "utf8");
    const ops = sumReplayOf(modelFromYaml(text, "specs/asset-holdings.yaml"));
    // One summed operation per increment the spec writes.
    expect(ops?.length).toBe(text.match(/- increment:/g)?.length);
  });

  const refusals: [string, string][] = [
    [
      "a condition",
      BASE.replace(
        "    - increment: balances\n      key:\n        kind: ft\n        holder: ${event.recipient}",
        '    - increment: balances\n      when: event.amount != "0"\n      key:\n        kind: ft\n        holder: ${event.recipient}',
      ),
    ],
    [
      "a source filter",
      BASE.replace("    type: ft_transfer", "    type: ft_transfer\n    assetIdentifier: SP000.token::t"),
    ],
    ["a tx-level source", BASE.replace("    type: tx_fee", "    type: contract_call")],
    ["a uint column", BASE.replace("        type: int", "        type: uint")],
    ["a function in a key", BASE.replace("holder: ${event.recipient}", "holder: ${lower(event.recipient)}")],
    ["a transaction field", BASE.replace("holder: ${event.recipient}", "holder: ${tx.sender}")],
    [
      "an upsert",
      `${BASE}    - upsert: balances\n      key: [kind, holder]\n      values:\n        kind: x\n        holder: \${event.sender}\n        amount: 1\n`,
    ],
  ];
  for (const [what, spec] of refusals) {
    it(`refuses ${what}`, () => {
      expect(spec).not.toBe(BASE);
      expect(sumReplayOf(modelFromYaml(spec))).toBeUndefined();
    });
  }
});
