/**
 * runtime/api/events/sql.ts: the compiled SQL text and parameters of event pages, tip reads and
 * reorg reads (DESIGN.md §8: row-value keyset, one index per filter; values only as parameters).
 */
import { describe, expect, it } from "vitest";
import { NO_FILTERS } from "../../../../runtime/api/events/query.js";
import {
  compileEventsPage,
  compileListPage,
  compileOverlappingReorgs,
  compileTipRead,
  MAX_PAGE_REORGS,
} from "../../../../runtime/api/events/sql.js";

const squash = (sql: string) => sql.replace(/\s+/g, " ").trim();
const bounds = { maxHeight: 90, finalizedHeight: 80 };

describe("compileEventsPage", () => {
  it("no filter, from the start: one keyset scan bounded by the tip", () => {
    const c = compileEventsPage({ after: null, filters: NO_FILTERS, limit: 200 }, bounds);
    const sql = squash(c?.sql ?? "");
    expect(c?.params).toEqual([90, 200, 80]);
    expect(sql).toContain(
      "FROM chain.events e WHERE e.canonical AND e.committed AND e.block_height <= $1 ORDER BY e.block_height, e.event_index LIMIT $2",
    );
    expect(sql).toContain("',\"finalized\":', CASE WHEN p.block_height <= $3::integer THEN 'true' ELSE 'false' END");
    // block_hash: one primary-key probe per event of the page (a join would scan chain.blocks).
    expect(sql).toContain(
      "',\"block_hash\":', COALESCE(to_json((SELECT b.block_hash FROM chain.blocks b WHERE b.index_block_hash = p.index_block_hash))::text, 'null')",
    );
    expect(sql).toMatch(/ORDER BY p\.block_height, p\.event_index$/);
    expect(sql).not.toContain("UNION");
  });

  it("after a cursor: a row-value predicate", () => {
    const c = compileEventsPage({ after: { height: 12, index: 3 }, filters: NO_FILTERS, limit: 5 }, bounds);
    expect(c?.params).toEqual([12, 3, 90, 5, 80]);
    expect(squash(c?.sql ?? "")).toContain("AND (e.block_height, e.event_index) > ($1, $2) AND e.block_height <= $3");
  });

  it("one type and the equality filters: one scan, every value a parameter", () => {
    const filters = {
      types: ["ft_transfer" as const],
      contractId: "SP1.c'; DROP TABLE x; --",
      sender: "SPA",
      recipient: "SPB",
      assetIdentifier: "SP1.c::t",
    };
    const c = compileEventsPage(
      { after: { height: 1, index: -1 }, filters, limit: 50 },
      { maxHeight: 9, finalizedHeight: null },
    );
    expect(c?.params).toEqual([
      1,
      -1,
      9,
      "SP1.c'; DROP TABLE x; --",
      "SPA",
      "SPB",
      "SP1.c::t",
      50,
      "ft_transfer",
      null,
    ]);
    const sql = squash(c?.sql ?? "");
    expect(sql).toContain(
      "WHERE e.canonical AND e.committed AND (e.block_height, e.event_index) > ($1, $2) AND e.block_height <= $3 AND (hashtextextended(e.contract_id, 0) = hashtextextended($4, 0) AND e.contract_id = $4) AND (hashtextextended(e.sender, 0) = hashtextextended($5, 0) AND e.sender = $5) AND (hashtextextended(e.recipient, 0) = hashtextextended($6, 0) AND e.recipient = $6) AND (hashtextextended(e.asset_identifier, 0) = hashtextextended($7, 0) AND e.asset_identifier = $7) AND (hashtextextended(e.event_type, 0) = hashtextextended($9, 0) AND e.event_type = $9) ORDER BY e.block_height, e.event_index LIMIT $8",
    );
    expect(sql).not.toContain("DROP");
  });

  it("several types: a UNION ALL of one bounded scan per type, merged by ORDER BY … LIMIT", () => {
    const c = compileEventsPage(
      { after: null, filters: { ...NO_FILTERS, types: ["stx_transfer", "print", "nft_mint"] }, limit: 10 },
      bounds,
    );
    expect(c?.params).toEqual([90, 10, "stx_transfer", "print", "nft_mint", 80]);
    const sql = squash(c?.sql ?? "");
    expect(sql.match(/UNION ALL/g)).toHaveLength(2);
    for (const p of ["$3", "$4", "$5"])
      expect(sql).toContain(
        `AND (hashtextextended(e.event_type, 0) = hashtextextended(${p}, 0) AND e.event_type = ${p}) ORDER BY e.block_height, e.event_index LIMIT $2)`,
      );
    expect(sql).toContain(") u ORDER BY block_height, event_index LIMIT $2) p");
  });

  it("an empty type set compiles to nothing (no query)", () => {
    expect(compileEventsPage({ after: null, filters: { ...NO_FILTERS, types: [] }, limit: 10 }, bounds)).toBeNull();
  });
});

describe("compileListPage: tip, horizon and page in one statement (one snapshot)", () => {
  it("the page is bounded by the tip row (a LIMIT 1 derived table); to_height is the first parameter", () => {
    const c = compileListPage({
      after: { height: 3, index: 1 },
      filters: { ...NO_FILTERS, sender: "SPA" },
      limit: 7,
      toHeight: 40,
    });
    expect(c.params).toEqual([40, 3, 1, "SPA", 7]);
    const sql = squash(c.sql);
    expect(sql).toContain(
      "FROM ( SELECT t.index_block_hash AS tip_hash, t.block_height AS tip_height, t.finalized_height, t.reorg_count, t.reorgs_below_finality, LEAST(t.block_height, COALESCE($1::integer, t.block_height)) AS max_height FROM control.chain_tip t LIMIT 1) tip",
    );
    expect(sql).toContain(
      "WHERE e.canonical AND e.committed AND e.block_height <= tip.max_height ORDER BY e.block_height DESC, e.event_index DESC LIMIT 1) h ON true",
    );
    expect(sql).toContain(
      "WHERE e.canonical AND e.committed AND (e.block_height, e.event_index) > ($2, $3) AND e.block_height <= tip.max_height AND (hashtextextended(e.sender, 0) = hashtextextended($4, 0) AND e.sender = $4) ORDER BY e.block_height, e.event_index LIMIT $5",
    );
    expect(sql).toContain(
      "',\"finalized\":', CASE WHEN p.block_height <= tip.finalized_height THEN 'true' ELSE 'false' END",
    );
    expect(sql).toMatch(/LEFT JOIN LATERAL \(.*\) p ON true ORDER BY p\.block_height, p\.event_index$/);
  });

  it("an empty type set still reads the tip, with no event rows", () => {
    const c = compileListPage({ after: null, filters: { ...NO_FILTERS, types: [] }, limit: 7, toHeight: null });
    expect(c.params).toEqual([null]);
    expect(squash(c.sql)).toContain(
      "LEFT JOIN LATERAL (SELECT NULL::integer AS block_height, NULL::integer AS event_index, NULL::text AS j WHERE false) p ON true",
    );
  });
});

describe("tip and reorg reads", () => {
  it("tip read: the horizon is bounded by min(tip, to_height)", () => {
    const c = compileTipRead(42);
    expect(c.params).toEqual([42]);
    expect(squash(c.sql)).toContain("e.block_height <= LEAST(t.block_height, COALESCE($1::integer, t.block_height))");
    expect(compileTipRead(null).params).toEqual([null]);
  });

  it("overlap: orphaned range intersects [low, high], newest first then reordered", () => {
    const c = compileOverlappingReorgs(5, 9);
    expect(c.params).toEqual([9, 5, MAX_PAGE_REORGS]);
    const sql = squash(c.sql);
    expect(sql).toContain(
      "WHERE r.orphaned_from_height <= $1 AND r.orphaned_to_height >= $2 ORDER BY r.id DESC LIMIT $3) x ORDER BY id",
    );
    // resume_cursor: the last canonical event below the fork point (the lowest orphaned height).
    expect(sql).toContain("e.block_height < r.fork_point_height");
  });
});
