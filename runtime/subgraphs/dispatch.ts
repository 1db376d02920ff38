/**
 * Running a subgraph's compiled handlers over a block's contexts (DESIGN.md §3): pure. Sources are indexed by the event type they listen to, with
 * `${config.X}` substituted once; for each context in chain order, every matching source's
 * handler runs (sources in spec order) and its row operations are collected in order.
 */
import { NonRetryableError } from "../internal/errors.js";
import { eventTypeOfSource, substituteConfig, sourceMatches, type TraitCheck } from "./match-source.js";
import type { Handler, HandlerContext, RowOp, SourceDef, SubgraphModule } from "./types.js";

/** A row operation with where it came from. */
export interface PlannedOp {
  op: RowOp;
  /** Position of the context in the block's (or batch's) context list: chain order. */
  ordinal: number;
  txId: string;
  eventIndex: number;
  blockHeight: number;
  indexBlockHash: string;
}

interface IndexedSource {
  name: string;
  source: SourceDef;
  handler: Handler;
}

/** A module's sources by listened event type, config already substituted. */
export interface DispatchIndex {
  byType: ReadonlyMap<string, readonly IndexedSource[]>;
  /** Source names whose filter uses `trait`. */
  traitSources: ReadonlySet<string>;
  /** Event types of its sources (for the backfill reader). */
  eventTypes: readonly string[];
  /** True when a source is tx-level (contract_call, contract_deploy). */
  txLevel: boolean;
}

/** A handler threw: the subgraph cannot process this block (the same block fails it again). */
export class HandlerError extends NonRetryableError {
  constructor(
    readonly subgraph: string,
    readonly source: string,
    readonly blockHeight: number,
    readonly txId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "HandlerError";
  }
}

export function buildDispatchIndex(module: SubgraphModule, config: Record<string, string>): DispatchIndex {
  const byType = new Map<string, IndexedSource[]>();
  const traitSources = new Set<string>();
  let txLevel = false;
  for (const [name, def] of Object.entries(module.sources)) {
    const handler = module.handlers[name];
    if (handler === undefined) continue;
    const filter: Record<string, string> = {};
    for (const [field, value] of Object.entries(def.filter)) filter[field] = substituteConfig(value, config);
    if (filter.trait !== undefined) traitSources.add(name);
    const type = eventTypeOfSource(def.type);
    if (type === "contract_call" || type === "contract_deploy") txLevel = true;
    const list = byType.get(type) ?? [];
    list.push({ name, source: { type: def.type, filter }, handler });
    byType.set(type, list);
  }
  return { byType, traitSources, eventTypes: [...byType.keys()], txLevel };
}

/**
 * Contract ids whose trait conformance the contexts need (events matched by a `trait` source
 * type), so the caller can load their interfaces before the synchronous dispatch.
 */
export function contractsNeedingTraits(index: DispatchIndex, contexts: readonly HandlerContext[]): Set<string> {
  const out = new Set<string>();
  if (index.traitSources.size === 0) return out;
  for (const ctx of contexts) {
    const sources = index.byType.get(ctx.event.type);
    if (!sources?.some((s) => index.traitSources.has(s.name))) continue;
    const contract = ctx.event.contract_id ?? ctx.tx.contract_id;
    if (contract !== null) out.add(contract);
  }
  return out;
}

/**
 * The row operations of `module` for `contexts` (chain order), skipping blocks below
 * `startBlock`. Throws HandlerError when a handler throws.
 */
export function planOps(
  module: SubgraphModule,
  index: DispatchIndex,
  contexts: readonly HandlerContext[],
  implementsTrait?: TraitCheck,
  ordinalBase = 0,
): PlannedOp[] {
  const out: PlannedOp[] = [];
  const start = module.startBlock ?? 0;
  for (let i = 0; i < contexts.length; i++) {
    const ctx = contexts[i];
    if (ctx.block.height < start) continue;
    const sources = index.byType.get(ctx.event.type);
    if (sources === undefined) continue;
    for (const s of sources) {
      if (!sourceMatches(s.source, ctx, implementsTrait)) continue;
      let ops: RowOp[];
      try {
        ops = s.handler(ctx);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw new HandlerError(
          module.name,
          s.name,
          ctx.block.height,
          ctx.tx.id,
          `handler ${s.name} failed at block ${ctx.block.height} tx ${ctx.tx.id}: ${message}`,
          { cause: err },
        );
      }
      for (const op of ops) {
        if (module.tables[op.table] === undefined) {
          throw new HandlerError(
            module.name,
            s.name,
            ctx.block.height,
            ctx.tx.id,
            `handler ${s.name} wrote unknown table ${op.table}`,
          );
        }
        out.push({
          op,
          ordinal: ordinalBase + i,
          txId: ctx.tx.id,
          eventIndex: ctx.event.event_index,
          blockHeight: ctx.block.height,
          indexBlockHash: ctx.block.index_block_hash,
        });
      }
    }
  }
  return out;
}
