/**
 * `sluice archive verify`, read-only: recompute each partition's content digest from the local
 * database (the same export publish runs) and compare it with the signed manifest.
 */
import type { Db } from "../db/types.js";
import type { PartitionEntry } from "./manifest.js";
import { contentSha256, discard, exportPartition, inSnapshot } from "./partition-export.js";

export type PartitionStatus = "ok" | "differs" | "missing";

export interface PartitionCheck {
  entry: PartitionEntry;
  status: PartitionStatus;
  /** What differs (row counts per table), or why it is missing. */
  detail: string;
}

export async function checkPartition(db: Db, entry: PartitionEntry): Promise<PartitionCheck> {
  return inSnapshot(db, async (q) => {
    const { rows } = await q.query<{ n: string }>(
      "SELECT count(*) AS n FROM chain.blocks WHERE canonical AND block_height BETWEEN $1 AND $2",
      [entry.first_height, entry.last_height],
    );
    if (Number(rows[0].n) === 0) return { entry, status: "missing", detail: "no canonical block stored in the range" };
    const exported = await exportPartition(q, {
      firstHeight: entry.first_height,
      lastHeight: entry.last_height,
      burnAfter: entry.burn_after_height,
      burnTo: entry.burn_to_height,
    });
    let digest: string;
    try {
      digest = await contentSha256(exported);
    } finally {
      await discard(exported);
    }
    if (digest === entry.content_sha256) return { entry, status: "ok", detail: "" };
    const counts = exported.sections
      .map((s) => {
        const want = entry.rows[s.table.slice("chain.".length) as keyof PartitionEntry["rows"]];
        return want === s.rows ? null : `${s.table} ${s.rows} rows, archive ${want}`;
      })
      .filter((x) => x !== null);
    return { entry, status: "differs", detail: counts.length ? counts.join("; ") : "row contents differ" };
  });
}

/** The verify table: one line per partition, then the totals. */
export function formatChecks(checks: readonly PartitionCheck[]): string {
  const lines = ["partition                 status   detail"];
  for (const c of checks) {
    const range = `${c.entry.first_height}-${c.entry.last_height}`.padEnd(25);
    lines.push(`${range} ${c.status.padEnd(8)} ${c.detail}`.trimEnd());
  }
  const count = (s: string) => checks.filter((c) => c.status === s).length;
  lines.push(`${checks.length} partitions: ${count("ok")} ok, ${count("differs")} differ, ${count("missing")} missing`);
  return lines.join("\n");
}
