/**
 * Every generated openapi.json (one per spec in specs/) is valid OpenAPI 3.1 (@readme/openapi-parser), is accepted by
 * openapi-typescript, and carries what SPEC.md "Versioning" and DESIGN.md §1 ask for.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { GENERATED_DIR, REPO_ROOT } from "../../generator/repo-paths.js";
import { specsInRepo } from "../support/spec-catalog.js";

/** Every spec's document (the built-ins and any spec a user added), and the golden case's. */
const DOCUMENTS = [
  ...specsInRepo().map(({ name }) => join(GENERATED_DIR, name, "openapi.json")),
  join(REPO_ROOT, "test", "golden", "all-operations", "expected", "openapi.json"),
];

type Doc = Record<string, unknown> & {
  info: { version: string };
  paths: Record<string, { get: { operationId: string; parameters: unknown[] } }>;
};

describe.each(DOCUMENTS.map((path) => [path.slice(REPO_ROOT.length + 1), path]))("%s", (_label, path) => {
  const doc = JSON.parse(readFileSync(path, "utf8")) as Doc;

  it("validates as OpenAPI 3.1", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? "" : compileErrors(result)).toBe("");
    expect(result.valid).toBe(true);
  });

  it("is accepted by openapi-typescript", async () => {
    const types = astToString(await openapiTS(structuredClone(doc) as unknown as OpenAPI3, { silent: true }));
    expect(types).toContain("export interface operations");
  });

  it("carries the x-subgraph extension keys and info.version = spec version", () => {
    expect(doc.info.version).toBe(doc["x-subgraph-version"]);
    expect(doc["x-subgraph-schema-hash"]).toMatch(/^[0-9a-f]{64}$/);
    expect(doc["x-subgraph-generated-at"]).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    for (const key of ["x-subgraph-name", "x-subgraph-sources", "x-subgraph-tables", "x-generated"]) {
      expect(doc[key], key).toBeDefined();
    }
  });

  it("has list, count, aggregate, get-by-id and stream operations for every table", () => {
    const tables = Object.keys(doc["x-subgraph-tables"] as object);
    const operations = Object.values(doc.paths)
      .map((item) => item.get.operationId)
      .sort();
    const want = tables.flatMap((t) =>
      ["listTableRows", "countTableRows", "aggregateTableRows", "getTableRow", "streamTableRows"].map(
        (op) => `${op}_${t}`,
      ),
    );
    expect(operations).toEqual(want.sort());
  });
});

describe("asset-holdings parameters", () => {
  const doc = JSON.parse(readFileSync(join(GENERATED_DIR, "asset-holdings", "openapi.json"), "utf8")) as Doc & {
    components: { parameters: Record<string, { name: string }> };
  };
  const names = (path: string) =>
    doc.paths[path].get.parameters.map((p) => {
      const ref = (p as { $ref?: string }).$ref;
      return ref === undefined
        ? (p as { name: string }).name
        : doc.components.parameters[ref.split("/").pop() as string].name;
    });

  it("list takes the paging parameters and every filter of SPEC.md's grammar", () => {
    expect(names("/v1/subgraphs/asset-holdings/holdings")).toEqual([
      "_limit",
      "cursor",
      "_order",
      "_sort",
      "_fields",
      "_search",
      "kind",
      "kind.neq",
      "kind.like",
      "amount",
      "amount.neq",
      "amount.gt",
      "amount.gte",
      "amount.lt",
      "amount.lte",
      "holder",
      "holder.neq",
      "holder.like",
      "asset_identifier",
      "asset_identifier.neq",
      "asset_identifier.like",
      "_id",
      "_id.neq",
      "_id.gt",
      "_id.gte",
      "_id.lt",
      "_id.lte",
      "_block_height",
      "_block_height.neq",
      "_block_height.gt",
      "_block_height.gte",
      "_block_height.lt",
      "_block_height.lte",
      "_tx_id",
      "_tx_id.neq",
      "_tx_id.like",
      "_created_at",
      "_created_at.neq",
      "_created_at.like",
      "_created_at.gt",
      "_created_at.gte",
      "_created_at.lt",
      "_created_at.lte",
    ]);
  });

  it("aggregate takes _count, _countDistinct, _sum, _min, _max plus the filters", () => {
    expect(names("/v1/subgraphs/asset-holdings/holdings/aggregate").slice(0, 6)).toEqual([
      "_count",
      "_countDistinct",
      "_sum",
      "_min",
      "_max",
      "kind",
    ]);
  });

  it("stream takes since plus the filters", () => {
    expect(names("/v1/subgraphs/asset-holdings/holdings/stream").slice(0, 2)).toEqual(["since", "kind"]);
  });
});
