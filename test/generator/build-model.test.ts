/**
 * loadSpec + buildModel (STYLE.md "Generator"): every mistake collected with its location and a
 * message saying what is expected — the rules golden cases do not already pin down.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { describe, expect, it } from "vitest";
import { generate } from "../../generator/generate.js";
import { formatSpecError } from "../../generator/spec-error.js";
import { errorsOfYaml, modelFromYaml } from "../support/spec-fixture.js";

const names = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
const columns = (n: number) =>
  names(n)
    .map((c) => `      ${c}: { type: text }`)
    .join("\n");

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
      "PostgreSQL system columns",
      spec("  t:\n    columns:\n      ctid: { type: text }\n      xmin: { type: uint }\n      tableoid: { type: int }"),
      [
        'spec.yaml:9:7: column name "ctid" is reserved (it is a PostgreSQL system column)',
        'spec.yaml:10:7: column name "xmin" is reserved (it is a PostgreSQL system column)',
        'spec.yaml:11:7: column name "tableoid" is reserved (it is a PostgreSQL system column)',
      ],
    ],
    [
      "more columns than a table may have",
      spec(`  t:\n    columns:\n${columns(201)}`),
      ["spec.yaml:9:7: tables.t.columns has 201 entries; at most 200 are allowed"],
    ],
    [
      "more tables than a spec may have",
      spec(Array.from({ length: 101 }, (_, i) => `  t${i}:\n    columns: { x: { type: text } }`).join("\n")),
      ["spec.yaml:7:3: tables has 101 entries; at most 100 are allowed"],
    ],
    [
      "a unique key over more columns than PostgreSQL indexes",
      spec(`  t:\n    columns:\n${columns(33)}\n    uniqueKeys:\n      - [${names(33).join(", ")}]`),
      ["spec.yaml:43:9: tables.t.uniqueKeys.0 has 33 entries; at most 32 are allowed"],
    ],
    [
      "more operations than a handler may have",
      spec(
        "  t:\n    columns: { x: { type: text } }",
        `\n  s:\n${"    - insert: t\n      values: { x: a }\n".repeat(101)}`,
      ),
      ["spec.yaml:11:5: handlers.s has 101 entries; at most 100 are allowed"],
    ],
    [
      "a unique key naming an unknown column",
      spec("  t:\n    columns:\n      holder: { type: text }\n    uniqueKeys: [[holdr]]"),
      ['spec.yaml:10:19: unknown column "holdr" in unique key (did you mean "holder"?)'],
    ],
    [
      "a sortWithin naming an unknown column, and one on a jsonb column",
      spec(
        "  t:\n    columns:\n      asset: { type: text }\n      n: { type: int, sortWithin: aset }\n      j: { type: jsonb, sortWithin: asset }",
      ),
      [
        'spec.yaml:10:35: sortWithin: "aset" is not another column of table "t" (did you mean "asset"?)',
        'spec.yaml:11:37: sortWithin: jsonb column "j" cannot be sorted',
      ],
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

  it("resolves YAML aliases, but refuses aliases that expand past the limit at the first alias", () => {
    const reused = spec(
      "  t:\n    columns:\n      a: &text { type: text, attributes: [nullable] }\n      b: *text\n      c: *text",
    );
    expect(modelFromYaml(reused).tables[0].columns.map((c) => [c.name, c.type, c.nullable])).toEqual([
      ["a", "text", true],
      ["b", "text", true],
      ["c", "text", true],
    ]);
    // Each level lists the previous one 10 times: 10^6 leaves from a few hundred bytes.
    const levels = ["x0: &x0 [a, a, a, a, a, a, a, a, a, a]"];
    for (let i = 1; i <= 6; i++)
      levels.push(
        `x${i}: &x${i} [${Array(10)
          .fill(`*x${i - 1}`)
          .join(", ")}]`,
      );
    expect(errorsOfYaml(`${levels.join("\n")}\n`)).toEqual([
      "spec.yaml:2:10: invalid YAML: aliases expand to more than 100 nodes; write the values out instead",
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

describe("generate", () => {
  it("refuses two specs with one name, or names that give one PostgreSQL schema", async () => {
    const named = (name: string) =>
      spec("  t:\n    columns: { x: { type: text } }").replace("name: g", `name: ${name}`);
    const result = await generate([
      { file: "specs/my-graph.yaml", text: named("my-graph") },
      { file: "specs/my_graph.yaml", text: named("my_graph") },
      { file: "specs/copy.yaml", text: named("my-graph") },
      { file: "specs/other.yaml", text: named("other") },
    ]);
    expect(result.ok ? [] : result.errors.map(formatSpecError)).toEqual([
      'specs/copy.yaml:1:1: subgraph name "my-graph" is already used by another spec',
      'specs/my_graph.yaml:1:1: subgraph name "my_graph" maps to the PostgreSQL schema sg_my_graph of "my-graph" (- and _ both become _); rename one',
    ]);
  });
});
