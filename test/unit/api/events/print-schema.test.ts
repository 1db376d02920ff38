/**
 * runtime/api/print-schema.ts: topics, merged Clarity types, variants, presence and none rates,
 * counts and heights, from hand-built print values (serialized with @stacks/transactions).
 */
import { Cl, serializeCV } from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import {
  addPrint,
  compatible,
  createPrintSchemaState,
  renderPrintSchema,
} from "../../../../runtime/api/events/print-schema.js";

const hex = (cv: Parameters<typeof serializeCV>[0]) => `0x${serializeCV(cv)}`;
const ADDR = "SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7";

function schemaOf(prints: { h: number; value: string | null; nodeTopic?: string }[]) {
  const state = createPrintSchemaState("SP1.c");
  for (const p of prints) addPrint(state, { blockHeight: p.h, nodeTopic: p.nodeTopic ?? "print", rawValue: p.value });
  return renderPrintSchema(state);
}

describe("print schema inference", () => {
  it("groups by the tuple's string topic; counts, heights, field presence and none rates", () => {
    const s = schemaOf([
      { h: 5, value: hex(Cl.tuple({ topic: Cl.stringAscii("deposit"), amount: Cl.uint(1), memo: Cl.none() })) },
      {
        h: 9,
        value: hex(
          Cl.tuple({ topic: Cl.stringAscii("deposit"), amount: Cl.uint(2), memo: Cl.some(Cl.bufferFromHex("ab")) }),
        ),
      },
      {
        h: 7,
        value: hex(
          Cl.tuple({ topic: Cl.stringAscii("deposit"), amount: Cl.uint(3), memo: Cl.none(), extra: Cl.bool(true) }),
        ),
      },
      { h: 6, value: hex(Cl.tuple({ topic: Cl.stringAscii("withdraw"), who: Cl.principal(ADDR) })) },
    ]);
    expect(s).toMatchObject({
      contract_id: "SP1.c",
      print_count: 4,
      undecodable_count: 0,
      first_block_height: 5,
      last_block_height: 9,
    });
    expect(Object.keys(s.topics)).toEqual(["deposit", "withdraw"]);
    const d = s.topics.deposit;
    expect(d).toMatchObject({ count: 3, first_block_height: 5, last_block_height: 9 });
    expect(d.variants).toBeUndefined();
    expect(d.fields?.amount).toEqual({ count: 3, presence_rate: 1, type: { type: "uint" } });
    expect(d.fields?.memo).toEqual({
      count: 3,
      presence_rate: 1,
      type: { type: "optional", inner: { type: "buffer" } },
      none_rate: 0.666667,
    });
    expect(d.fields?.extra).toEqual({ count: 1, presence_rate: 0.333333, type: { type: "bool" } });
    // The topic's type is the union of the tuples' keys, optional filled from the `some`.
    expect(d.type).toEqual({
      type: "tuple",
      fields: {
        topic: { type: "string-ascii" },
        amount: { type: "uint" },
        memo: { type: "optional", inner: { type: "buffer" } },
        extra: { type: "bool" },
      },
    });
    expect(s.topics.withdraw.fields?.who.type).toEqual({ type: "principal" });
  });

  it("values without a string topic field fall under the node topic; undecodable values are only counted", () => {
    const s = schemaOf([
      { h: 1, value: hex(Cl.uint(5)) },
      { h: 2, value: hex(Cl.tuple({ topic: Cl.uint(1) })) },
      { h: 3, value: "0x" },
      { h: 4, value: null },
      { h: 5, value: "0xzz" },
    ]);
    expect(s.print_count).toBe(5);
    expect(s.undecodable_count).toBe(3);
    expect(Object.keys(s.topics)).toEqual(["print"]);
    expect(s.topics.print.count).toBe(2);
    expect(s.topics.print.variants).toEqual([
      { type: { type: "uint" }, count: 1 },
      { type: { type: "tuple", fields: { topic: { type: "uint" } } }, count: 1 },
    ]);
  });

  it("a field seen with types that cannot merge keeps variants, most common first", () => {
    const t = (v: Parameters<typeof serializeCV>[0]) => hex(Cl.tuple({ topic: Cl.stringAscii("t"), v }));
    const s = schemaOf([
      { h: 1, value: t(Cl.stringAscii("a")) },
      { h: 2, value: t(Cl.uint(1)) },
      { h: 3, value: t(Cl.uint(2)) },
    ]);
    const field = s.topics.t.fields?.v;
    expect(field?.type).toEqual({ type: "uint" });
    expect(field?.variants).toEqual([
      { type: { type: "uint" }, count: 2 },
      { type: { type: "string-ascii" }, count: 1 },
    ]);
  });

  it("responses and lists fill their unknown parts from other values", () => {
    const s = schemaOf([
      { h: 1, value: hex(Cl.list([])) },
      { h: 2, value: hex(Cl.list([Cl.int(-1)])) },
      { h: 3, value: hex(Cl.ok(Cl.uint(1))) },
      { h: 4, value: hex(Cl.error(Cl.stringUtf8("no"))) },
    ]);
    expect(s.topics.print.variants).toEqual([
      { type: { type: "list", element: { type: "int" } }, count: 2 },
      { type: { type: "response", ok: { type: "uint" }, err: { type: "string-utf8" } }, count: 2 },
    ]);
  });

  it("renders keys sorted, so the same history gives the same bytes", () => {
    const a = schemaOf([
      { h: 1, value: hex(Cl.tuple({ topic: Cl.stringAscii("b"), z: Cl.uint(1) })) },
      { h: 2, value: hex(Cl.tuple({ topic: Cl.stringAscii("a"), y: Cl.uint(1) })) },
    ]);
    expect(Object.keys(a.topics)).toEqual(["a", "b"]);
    expect(JSON.stringify(a)).toBe(
      JSON.stringify(
        schemaOf([
          { h: 1, value: hex(Cl.tuple({ topic: Cl.stringAscii("b"), z: Cl.uint(1) })) },
          { h: 2, value: hex(Cl.tuple({ topic: Cl.stringAscii("a"), y: Cl.uint(1) })) },
        ]),
      ),
    );
  });

  it("compatible: unknown parts match, tuples match on shared keys", () => {
    expect(compatible({ type: "optional", inner: null }, { type: "optional", inner: { type: "uint" } })).toBe(true);
    expect(compatible({ type: "uint" }, { type: "int" })).toBe(false);
    expect(
      compatible({ type: "tuple", fields: { a: { type: "uint" } } }, { type: "tuple", fields: { b: { type: "int" } } }),
    ).toBe(true);
    expect(
      compatible({ type: "tuple", fields: { a: { type: "uint" } } }, { type: "tuple", fields: { a: { type: "int" } } }),
    ).toBe(false);
  });
});
