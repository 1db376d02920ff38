/** The names of an event type (runtime/chain/event-type-names.ts) against the literal tables of the tests. */
import { describe, expect, it } from "vitest";
import { modelSpec } from "../../../generator/model-spec.js";
import { eventTypeNamed, eventTypeOfNodeName, triggerTypeName } from "../../../runtime/chain/event-type-names.js";
import { NODE_TYPE_TO_OURS } from "../../support/chain-model.js";

describe("event type names", () => {
  it.each(Object.entries(NODE_TYPE_TO_OURS))("the node's %s is our %s, under each of its names", (node, ours) => {
    expect(eventTypeOfNodeName(node)).toBe(ours);
    const trigger = ours === "print" ? "print_event" : ours;
    for (const name of [ours, trigger, node]) {
      expect(eventTypeNamed(name)).toBe(ours);
      expect(triggerTypeName(name)).toBe(trigger);
    }
  });

  it("only node names decode node events; other names pass through triggerTypeName unchanged", () => {
    expect(eventTypeOfNodeName("print")).toBeUndefined();
    expect(eventTypeOfNodeName("print_event")).toBeUndefined();
    expect(eventTypeNamed("contract_call")).toBeUndefined();
    for (const name of ["contract_call", "contract_deploy", "sbtc_deposit", "tx_fee", "nope"]) {
      expect(triggerTypeName(name)).toBe(name);
    }
  });

  it("a spec source typed `print` or `contract_event` models, and hashes, as print_event", () => {
    const spec = (type: string) =>
      [
        "name: prints",
        "version: 1.0.0",
        "description: Prints.",
        "sources:",
        "  p:",
        `    type: ${type}`,
        "tables:",
        "  t:",
        "    columns:",
        "      topic: { type: text, attributes: [nullable] }",
        "handlers:",
        "  p:",
        "    - insert: t",
        "      values:",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression}
        "        topic: ${event.payload.topic}",
      ].join("\n");
    const hashes = ["print_event", "print", "contract_event"].map((type) => {
      const r = modelSpec({ file: "spec.yaml", text: spec(type) });
      if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("; "));
      expect(r.model.sources.map((source) => source.type)).toEqual(["print_event"]);
      return r.model.schemaHash;
    });
    expect(new Set(hashes).size).toBe(1);
  });
});
