/**
 * Which statements the PostgreSQL driver runs as named prepared statements, so PostgreSQL parses
 * and plans them once per connection instead of on every call (on the ingest path, parse + plan
 * was ~40% of the database's time per block). Pure policy, no I/O:
 *
 * - a text is prepared from its second use on (one-off statements stay unnamed);
 * - at most `limit` distinct texts are ever prepared per process, so every pooled connection
 *   holds a bounded number of them (node-pg never deallocates); reads of the subgraph API
 *   (tagged `read`, one text per query shape) have their own budget, `readLimit`, so however
 *   many shapes clients send, the ingest statements keep theirs;
 * - a statement on a subgraph table (`"sg_…"`) is prepared only when it starts with a schema tag
 *   (`schemaTag(hash)`): those tables gain columns at run time (additive deploys), and a prepared
 *   statement whose result columns change fails with "cached plan must not change result type".
 *   The tag carries the subgraph's schema hash, so a schema change yields a new text and name.
 */
import { createHash } from "node:crypto";

const SUBGRAPH_SCHEMA = '"sg_';
const TAG_PREFIX = "/* schema ";

const READ_MARK = " read */ ";

/**
 * The leading comment that marks a subgraph statement as bound to one schema version; `read`
 * statements (the read API's) are budgeted apart from the rest.
 */
export function schemaTag(schemaHash: string, use: "write" | "read" = "write"): string {
  return `${TAG_PREFIX}${schemaHash}${use === "read" ? READ_MARK : " */ "}`;
}

/** Whether the statement's leading tag (its first comment) is a `read` one. */
function isReadTagged(sql: string): boolean {
  if (!sql.startsWith(TAG_PREFIX)) return false;
  const end = sql.indexOf("*/");
  return end > 0 && sql.slice(0, end + 3).endsWith(READ_MARK);
}

export class PreparedStatementPolicy {
  private readonly names = new Map<string, string>();
  private readonly seen = new Map<string, number>();
  private readTexts = 0;

  constructor(
    private readonly limit = 256,
    private readonly readLimit = 128,
    /** Uses of a text before it is prepared. */
    private readonly threshold = 2,
    /** Bound on the texts remembered while counting uses. */
    private readonly seenLimit = 4096,
  ) {}

  /** The statement name to run `sql` under, or undefined to run it unnamed. */
  nameFor(sql: string): string | undefined {
    const known = this.names.get(sql);
    if (known !== undefined) return known;
    const read = isReadTagged(sql);
    if (read ? this.readTexts >= this.readLimit : this.names.size - this.readTexts >= this.limit) return undefined;
    if (sql.includes(SUBGRAPH_SCHEMA) && !sql.startsWith(TAG_PREFIX)) return undefined;
    const uses = (this.seen.get(sql) ?? 0) + 1;
    if (uses < this.threshold) {
      if (this.seen.size >= this.seenLimit) this.seen.clear();
      this.seen.set(sql, uses);
      return undefined;
    }
    this.seen.delete(sql);
    const name = `sluice_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`;
    this.names.set(sql, name);
    if (read) this.readTexts++;
    return name;
  }
}
