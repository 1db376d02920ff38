/** SQL builders: identifiers quoted from the schema, values only as parameters, journal CTEs. */
import { describe, expect, it } from "vitest";
import { deleteSql, insertSql, revertRestoreSql, upsertSql } from "../../../runtime/subgraphs/table-sql.js";
import type { TableMeta } from "../../../runtime/subgraphs/types.js";

const meta: TableMeta = {
  name: 'we"ird',
  columns: {
    'a"b': { type: "text", indexed: false, searchable: false, nullable: false, system: false },
    n: { type: "int", indexed: false, searchable: false, nullable: true, system: false },
    _id: { type: "serial", indexed: true, searchable: false, nullable: false, system: true },
    _block_height: { type: "bigint", indexed: true, searchable: false, nullable: false, system: true },
    _tx_id: { type: "text", indexed: false, searchable: false, nullable: false, system: true },
    _created_at: { type: "timestamp", indexed: false, searchable: false, nullable: false, system: true },
  },
  uniqueKeys: [['a"b']],
  filters: {},
  searchable: [],
  sortable: [],
};
const target = { subgraph: "x", schema: "sg_x", meta };

describe("table SQL", () => {
  it("quotes identifiers and takes every value as a typed array parameter", () => {
    const sql = insertSql(target, ['a"b', "n"], false, false);
    expect(sql).toBe(
      'INSERT INTO "sg_x"."we""ird" ("_block_height", "_tx_id", "a""b", "n") SELECT "_block_height", "_tx_id", "a""b", "n" FROM (SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::numeric[]) WITH ORDINALITY AS i("_block_height", "_tx_id", "a""b", "n", "_ord")) input ORDER BY "_ord"',
    );
  });
  it("journals pre-images in the same statement, journal parameters first", () => {
    const sql = upsertSql(target, ['a"b'], ['a"b', "n"], ["n"], true, true);
    expect(sql).toContain("unnest($5::bigint[], $6::text[], $7::text[], $8::numeric[])");
    expect(sql).toContain(
      'ON CONFLICT ("a""b") DO UPDATE SET "_block_height" = EXCLUDED."_block_height", "_tx_id" = EXCLUDED."_tx_id", "n" = COALESCE(t."n", 0) + EXCLUDED."n"',
    );
    expect(sql).toContain("INSERT INTO control.subgraph_undo");
    expect(sql).toContain("to_jsonb(o)");
  });
  it("matches null key values with IS NULL, not a parameter", () => {
    expect(deleteSql(target, ['a"b', "n"], [false, true], false)).toContain('t."a""b" = $1 AND t."n" IS NULL');
  });
  it("restores every column but _id from the journal", () => {
    const sql = revertRestoreSql(target, Object.keys(meta.columns));
    expect(sql).toContain('jsonb_populate_record(NULL::"sg_x"."we""ird", f.pre_image)');
    expect(sql).toContain(
      'ON CONFLICT ("_id") DO UPDATE SET "a""b" = EXCLUDED."a""b", "n" = EXCLUDED."n", "_block_height"',
    );
  });
});
