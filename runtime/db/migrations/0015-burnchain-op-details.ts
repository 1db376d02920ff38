/**
 * The details of each Bitcoin-originated operation (runtime/chain/decode/burnchain-op.ts): what
 * the node's `burnchain_op` field, or the op's receipt and events, say it did (STX transfer,
 * stack-stx, delegate-stx, aggregate key vote). The Extended view renders such a transaction as
 * the Stacks transaction it stands for. Null on every other transaction, and on ops whose
 * details cannot be known; ops stored before this migration have none (a re-import fills them).
 * A column of chain.transactions, so it follows the row's canonical flag and travels in archive
 * bundles with the rest of the row.
 */
export const name = "burnchain-op-details";
export const sql = `
ALTER TABLE chain.transactions ADD COLUMN burnchain_op_details jsonb;
`;
