/** canonicalJson and schemaHash (DESIGN.md §1: sha256 of name, sources and tables; version excluded). */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, schemaHash } from "../../generator/schema-hash.js";
import { modelFromYaml } from "../support/spec-fixture.js";

describe("canonicalJson", () => {
  const cases: [string, unknown, string][] = [
    [
      "sorts keys at every depth",
      { b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } },
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    ],
    ["keeps array order", ["b", "a"], '["b","a"]'],
    ["drops undefined members", { a: undefined, b: true }, '{"b":true}'],
    ["escapes like JSON", { 'k"': "line\nbreak" }, '{"k\\"":"line\\nbreak"}'],
    ["orders keys by code unit", { a: 1, B: 2, _: 3 }, '{"B":2,"_":3,"a":1}'],
  ];
  it.each(cases)("%s", (_name, value, want) => {
    expect(canonicalJson(value)).toBe(want);
  });
});

const SPEC = (version: string, order: "ab" | "ba", description = "d") => `
name: hashed
version: ${version}
description: ${description}
sources: { s: { type: stx_mint, minAmount: "5" } }
tables:
  t:
    columns:
${order === "ab" ? "      a: { type: text }\n      b: { type: uint, attributes: [nullable] }" : "      b: { type: uint, attributes: [nullable] }\n      a: { type: text }"}
handlers: {}
`;

describe("schemaHash", () => {
  it("is 64 hex characters, excluding version, descriptions and key order", () => {
    const base = modelFromYaml(SPEC("1.0.0", "ab")).schemaHash;
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(modelFromYaml(SPEC("2.0.0", "ab", "other")).schemaHash).toBe(base);
    expect(modelFromYaml(SPEC("1.0.0", "ba")).schemaHash).toBe(base);
    expect(modelFromYaml(SPEC("1.0.0", "ab").replace("uint", "int")).schemaHash).not.toBe(base);
  });

  it("hashes the canonical JSON of name, sources and tables", () => {
    const canonical =
      '{"name":"x","sources":{"s":{"filter":{},"type":"stx_mint"}},' +
      '"tables":{"t":{"columns":{"a":{"indexed":false,"nullable":false,"searchable":false,"type":"text"}},"uniqueKeys":[]}}}';
    expect(
      schemaHash({
        name: "x",
        sources: { s: { type: "stx_mint", filter: {} } },
        tables: {
          t: { columns: { a: { type: "text", indexed: false, searchable: false, nullable: false } }, uniqueKeys: [] },
        },
      }),
    ).toBe(createHash("sha256").update(canonical).digest("hex"));
  });
});
