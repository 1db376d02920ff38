/**
 * Resolves `trait:` filters (SPEC.md "Trigger object") against deployed contracts' interfaces,
 * cached per contract: `prefetch` loads the interfaces a step needs (the canonical successful
 * deploy's `contract_interface`), then `check` answers synchronously for sourceMatches.
 */
import type { DecodedBlock } from "../chain/types.js";
import type { Queryable } from "../db/types.js";
import type { TraitCheck } from "./match-source.js";
import { conformsToTrait, parseTraitName } from "./traits.js";

export interface TraitResolver {
  prefetch(q: Queryable, contracts: Iterable<string>): Promise<void>;
  /** Records the interfaces of the block's successful deploys (before its events are matched). */
  noteBlock(block: DecodedBlock): void;
  check: TraitCheck;
}

const DEPLOY_TYPES = new Set(["smart_contract", "versioned_smart_contract"]);

export function createTraitResolver(): TraitResolver {
  const interfaces = new Map<string, unknown>();
  const verdicts = new Map<string, boolean>();
  return {
    async prefetch(q, contracts) {
      const missing = [...contracts].filter((c) => !interfaces.has(c));
      if (missing.length === 0) return;
      const { rows } = await q.query<{ contract_id: string; contract_interface: unknown }>(
        `SELECT DISTINCT ON (contract_id) contract_id, contract_interface FROM chain.transactions
          WHERE contract_id = ANY($1::text[]) AND tx_type IN ('smart_contract', 'versioned_smart_contract')
            AND status = 'success' AND canonical
          ORDER BY contract_id, block_height`,
        [missing],
      );
      for (const c of missing) interfaces.set(c, null);
      for (const r of rows) interfaces.set(r.contract_id, r.contract_interface ?? null);
    },
    noteBlock(block) {
      for (const tx of block.txs) {
        if (tx.status !== "success" || !DEPLOY_TYPES.has(tx.txType) || tx.contractId === null) continue;
        interfaces.set(tx.contractId, tx.contractInterface ?? null);
        for (const key of verdicts.keys()) if (key.startsWith(`${tx.contractId}\n`)) verdicts.delete(key);
      }
    },
    check(contractId, trait) {
      const key = `${contractId}\n${trait}`;
      const known = verdicts.get(key);
      if (known !== undefined) return known;
      const name = parseTraitName(trait);
      const contractInterface = interfaces.get(contractId);
      const verdict =
        name !== null &&
        contractInterface !== undefined &&
        contractInterface !== null &&
        conformsToTrait(contractInterface, name);
      if (contractInterface !== undefined) verdicts.set(key, verdict);
      return verdict;
    },
  };
}
