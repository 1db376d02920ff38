/**
 * Whether a built-in subgraph's rows must be rebuilt on upgrade (DESIGN.md §2: a subgraph is
 * "built by replaying stored canonical blocks through the same handlers"). Its rows are derived
 * from chain data by its sources and handlers: when those change, the rows already written are not
 * what the new version defines, even when its tables stay the same (asset-holdings 1.2.0 added
 * fees and miner rewards to STX balances). Pure: compares the stored spec with the new one, both
 * modelled, on their sources, handlers and startBlock; descriptions, comments and layout do not
 * count, and table changes are the schema diff's business (schema-diff.ts).
 */
import { modelSpec } from "../../generator/model-spec.js";
import { canonicalJson } from "../../generator/schema-hash.js";

/** A spec as stored with its subgraph (control.subgraphs) or shipped with the build. */
export interface SpecRevision {
  version: string;
  /** Null when the spec text is not at hand (a build without specs/). */
  specText: string | null;
}

/**
 * True when `after` derives rows differently from `before`. Without both texts the versions
 * decide; a stored spec the current generator no longer accepts counts as changed.
 */
export function derivationChanged(before: SpecRevision, after: SpecRevision): boolean {
  if (before.specText === null || after.specText === null) return before.version !== after.version;
  const old = derivationOf(before.specText);
  return old === null || old !== derivationOf(after.specText);
}

/** Canonical JSON of what produces the rows; null when the text does not model. */
function derivationOf(specText: string): string | null {
  const result = modelSpec({ file: "spec.yaml", text: specText });
  if (!result.ok) return null;
  const { sources, handlers, startBlock } = result.model;
  // Expression nodes carry their offset in the value text: layout, not meaning.
  const withoutOffsets = JSON.parse(
    JSON.stringify({ sources, handlers, startBlock }, (key, value) => (key === "offset" ? undefined : value)),
  );
  return canonicalJson(withoutOffsets);
}
