/**
 * Where a /v1 read of indexed chain data runs: on a read replica under the consistency rule of
 * runtime/scale/read-replicas.ts when the service has replicas, else on the primary (`ctx.db`).
 * `read` must only read (it may run twice: on a replica, then on the primary) and must take every
 * query from the Queryable it is given, so the whole answer comes from one database.
 */
import type { Queryable } from "../../db/types.js";
import type { ReadAnswer } from "../../scale/read-replicas.js";
import type { SharedDeps } from "./context.js";

export type { ReadAnswer } from "../../scale/read-replicas.js";

export function readChainData<T>(
  ctx: Pick<SharedDeps, "db" | "reads">,
  read: (q: Queryable) => Promise<T>,
  options?: { primaryTip?: string | null },
): Promise<ReadAnswer<T>> {
  if (ctx.reads) return ctx.reads.run(read, options);
  return read(ctx.db).then((value) => ({ value, replica: null, tip: null }));
}
