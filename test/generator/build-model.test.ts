/**
 * loadSpec + buildModel (STYLE.md "Generator"): every mistake collected with its location and a
 * message saying what is expected — the rules golden cases do not already pin down.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { describe, expect, it } from "vitest";
import { errorsOfYaml, modelFromYaml } from "./spec-fixture.js";

const spec = (tables: string, handlers = "{}", sources = "s: { type: stx_transfer }") => `name: g
version: 1.0.0
description: d
sources:
  ${sources}
tables:
${tables}
handlers: ${handlers}
`;

describe("buildModel", () => {
  it("normalizes a spec into ordered, frozen parts", () => {
    const model = modelFromYaml(
      spec(
        "  t:\n    columns:\n      b: { type: uint, attributes: [indexed] }\n      a: { type: text, attributes: [nullable] }",
      ),
    );
    expect(model.tables[0].columns.map((c) => [c.name, c.type, c.indexed, c.nullable])).toEqual([
      ["b", "uint", true, false],
      ["a", "text", false, true],
    ]);
    expect(model.pgSchema).toBe("sg_g");
    expect(model.generatedAt).toBe("1970-01-01T00:00:00.000Z");
    expect(Object.isFrozen(model.tables[0].columns[0])).toBe(true);
  });

  it("accepts JSON specs (JSON is YAML)", () => {
    const model = modelFromYaml(
      JSON.stringify({
        name: "j",
        version: "1.2.3",
        description: "d",
        released: "2026-03-04",
        sources: { s: { type: "stx_mint" } },
        tables: { t: { columns: { k: { type: "text" }, n: { type: "int" } }, uniqueKeys: [["k"]] } },
        handlers: { s: [{ increment: "t", key: { k: "${tx.sender}" }, add: { n: 1 } }] },
      }),
      "spec.json",
    );
    expect([model.name, model.generatedAt]).toEqual(["j", "2026-03-04T00:00:00.000Z"]);
  });

  const cases: [string, string, string[]][] = [
    [
      "reserved column names",
      spec("  t:\n    columns:\n      cursor: { type: text }"),
      ['spec.yaml:9:7: column name "cursor" is reserved (it is a query parameter of the table routes)'],
    ],
    [
      "searchable on a non-text column",
      spec("  t:\n    columns:\n      n: { type: uint, attributes: [searchable] }"),
      ['spec.yaml:9:36: searchable needs a text or principal column; "n" is uint'],
    ],
    [
      "a unique key naming an unknown column",
      spec("  t:\n    columns:\n      holder: { type: text }\n    uniqueKeys: [[holdr]]"),
      ['spec.yaml:10:19: unknown column "holdr" in unique key (did you mean "holder"?)'],
    ],
    [
      "table names whose type names clash",
      spec("  a-b:\n    columns: { x: { type: text } }\n  a_b:\n    columns: { x: { type: text } }"),
      ['spec.yaml:9:3: table "a_b" clashes with "a-b" (same generated type name)'],
    ],
    [
      "interpolation other than config in a source filter",
      spec("  t:\n    columns: { x: { type: text } }", "{}", "s: { type: stx_transfer, sender: 'SP${event.sender}' }"),
      ['spec.yaml:5:39: source filters may only use ${config.X}, found "${event.sender}"'],
    ],
    [
      "an entry that is not an operation",
      spec("  t:\n    columns: { x: { type: text } }", "\n  s:\n    - inserts: t"),
      [
        "spec.yaml:11:7: expected an operation: a mapping with one of the keys insert, upsert, update, delete, increment",
      ],
    ],
    [
      "an operation missing its keys, and one with two operation keys (the first in insert, upsert, update, delete, increment order wins)",
      spec(
        "  t:\n    columns: { x: { type: text } }",
        "\n  s:\n    - insert: t\n    - delete: t\n      update: t\n      key: { x: a }",
      ),
      [
        'spec.yaml:11:7: the insert operation at handlers.s.0 is missing the required key "values"',
        'spec.yaml:12:7: the update operation at handlers.s.1 is missing the required key "set"',
        'spec.yaml:12:7: unknown key "delete" in the update operation at handlers.s.1 (expected one of: update, when, key, set)',
      ],
    ],
    [
      "upsert values that leave out the key",
      spec(
        "  t:\n    columns:\n      k: { type: text }\n      v: { type: text, attributes: [nullable] }\n    uniqueKeys: [[k]]",
        "\n  s:\n    - upsert: t\n      key: [k]\n      values:\n        v: x",
      ),
      [
        'spec.yaml:17:9: upsert into "t" does not set the required column "k" (set it or mark it nullable)',
        'spec.yaml:17:9: upsert values must set the key column "k"',
      ],
    ],
    [
      "an increment whose key is not unique, and a delta on a key column",
      spec(
        "  t:\n    columns:\n      k: { type: text }\n      n: { type: int }\n    uniqueKeys: [[k, n]]",
        "\n  s:\n    - increment: t\n      key: { k: a }\n      add: { k: 1, n: 2 }",
      ),
      [
        'spec.yaml:15:12: increment key (k) is not a unique key of table "t"; unique keys of "t": (k, n)',
        'spec.yaml:16:14: cannot increment column "k" of type text; increment needs an int, uint or bigint column',
      ],
    ],
    [
      "add() with one argument, with a text argument, and its number in a timestamp column",
      spec(
        "  t:\n    columns:\n      n: { type: uint }\n      m: { type: int }\n      at: { type: timestamp }",
        "\n  s:\n    - insert: t\n      values:\n        n: ${add(event.amount)}\n        m: ${add(event.amount, tx.id)}\n        at: ${add(block.time, 1)}",
      ),
      [
        "spec.yaml:16:14: add() takes 2 arguments, got 1",
        "spec.yaml:17:32: argument 2 of add() must be a number, got text",
        'spec.yaml:18:15: column "at" is timestamp; the value is a number (use to_timestamp(...) for unix seconds)',
      ],
    ],
    [
      "errors inside quoted values point into the expression",
      spec(
        "  t:\n    columns: { x: { type: text } }",
        '\n  s:\n    - insert: t\n      values:\n        x: "id ${tx.idd}"',
      ),
      [
        'spec.yaml:13:18: unknown field "tx.idd" (did you mean "id"?); tx has id, sender, type, contract_id, function_name, status, index',
      ],
    ],
  ];
  it.each(cases)("reports %s", (_name, text, want) => {
    expect(errorsOfYaml(text)).toEqual(want);
  });

  it("lets update and delete keys name system columns", () => {
    const model = modelFromYaml(
      spec(
        "  t:\n    columns: { x: { type: text } }",
        "\n  s:\n    - update: t\n      key: { _tx_id: '${tx.id}' }\n      set: { x: y }\n    - delete: t\n      key: { _id: 1 }",
      ),
    );
    expect(model.handlers[0].operations.map((op) => op.kind)).toEqual(["update", "delete"]);
  });

  it("reports YAML syntax errors at their position (kept inline: a broken golden spec.yaml would fail lint)", () => {
    expect(errorsOfYaml("name: x\ntables:\n  t: { columns: \nhandlers: {}\n")).toEqual([
      "spec.yaml:3:17: invalid YAML: Flow map in block collection must be sufficiently indented and end with a }",
    ]);
  });

  it("collects every schema error at once", () => {
    const errors = errorsOfYaml(
      "name: Bad\nversion: 1\ndescription: d\nsources: {}\ntables: {}\nhandlers: {}\nextra: 1\n",
    );
    expect(errors).toEqual([
      'spec.yaml:1:7: invalid subgraph name "Bad": expected a name of lower-case letters, digits, "-" and "_" that starts with a letter (at most 48 characters)',
      "spec.yaml:2:10: invalid version 1: expected a semantic version MAJOR.MINOR.PATCH such as 1.0.0",
      "spec.yaml:4:10: sources must not be empty",
      "spec.yaml:5:9: tables must not be empty",
      'spec.yaml:7:1: unknown key "extra" in the spec (expected one of: name, version, description, released, startBlock, sources, tables, handlers)',
    ]);
  });
});
