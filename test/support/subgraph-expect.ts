/**
 * Expected subgraph rows computed literally from raw observer JSON (the `/new_block` bodies),
 * sharing no code with runtime/: balances from committed ft_* and stx_* events, STX fees from
 * raw_tx and matured miner rewards from the block bodies, deploys from raw_tx, sBTC registry
 * prints decoded with @stacks/transactions, sBTC transfers with the memo buffer the token contract
 * prints right after them.
 */
import { AuthType, deserializeTransaction, hexToCV } from "@stacks/transactions";
import { c32address } from "c32check";
import { clarityToJson } from "./handler-context.js";
import { NODE_TYPE_TO_OURS, type RawRequest, expectedChain } from "./chain-model.js";

// biome-ignore lint/suspicious/noExplicitAny: raw fixture JSON
export type RawBlock = any;

/** The canonical blocks (first body per hash), by height. */
export function canonicalBlocks(requests: RawRequest[]): RawBlock[] {
  const chain = expectedChain(requests);
  const seen = new Map<string, RawBlock>();
  for (const r of requests) {
    if (r.path !== "/new_block") continue;
    const b = JSON.parse(r.body);
    if (!seen.has(b.index_block_hash)) seen.set(b.index_block_hash, b);
  }
  return [...seen.values()]
    .filter((b) => chain.canonicalHashes.has(b.index_block_hash))
    .sort((a, b) => a.block_height - b.block_height);
}

/**
 * holdings as `kind|asset|holder` → balance, from committed ft_* / stx_* events; STX balances are
 * account balances the way the Hiro API computes them: also minus every fee a transaction paid
 * (whatever its status; the sponsor pays for a sponsored one; Bitcoin-originated ops, raw_tx 0x00,
 * pay none) and plus each matured miner reward (coinbase + anchored + streamed confirmed + streamed
 * produced fees) to its recipient. A zero fee or a zero reward makes no row.
 */
export function expectedHoldings(blocks: RawBlock[]): Map<string, bigint> {
  const balances = new Map<string, bigint>();
  const add = (kind: string, asset: string, holder: string, delta: bigint) => {
    const key = `${kind}|${asset}|${holder}`;
    balances.set(key, (balances.get(key) ?? 0n) + delta);
  };
  for (const b of blocks) {
    for (const r of b.matured_miner_rewards ?? []) {
      const total =
        BigInt(r.coinbase_amount) +
        BigInt(r.tx_fees_anchored) +
        BigInt(r.tx_fees_streamed_confirmed) +
        BigInt(r.tx_fees_streamed_produced);
      if (total > 0n) add("stx", "STX", r.recipient, total);
    }
    for (const t of b.transactions) {
      if (t.raw_tx === "0x00") continue;
      const { payer, fee } = feePaid(t.raw_tx);
      if (fee > 0n) add("stx", "STX", payer, -fee);
    }
    for (const e of b.events) {
      if (!e.committed) continue;
      const ft = e[e.type];
      switch (e.type) {
        case "ft_transfer_event":
          add("ft", ft.asset_identifier, ft.sender, -BigInt(ft.amount));
          add("ft", ft.asset_identifier, ft.recipient, BigInt(ft.amount));
          break;
        case "ft_mint_event":
          add("ft", ft.asset_identifier, ft.recipient, BigInt(ft.amount));
          break;
        case "ft_burn_event":
          add("ft", ft.asset_identifier, ft.sender, -BigInt(ft.amount));
          break;
        case "stx_transfer_event":
          add("stx", "STX", ft.sender, -BigInt(ft.amount));
          add("stx", "STX", ft.recipient, BigInt(ft.amount));
          break;
        case "stx_mint_event":
          add("stx", "STX", ft.recipient, BigInt(ft.amount));
          break;
        case "stx_burn_event":
          add("stx", "STX", ft.sender, -BigInt(ft.amount));
          break;
      }
    }
  }
  return balances;
}

/** The fee a raw transaction pays and who pays it: the sponsor of a sponsored transaction, else its origin. */
export function feePaid(rawTx: string): { payer: string; fee: bigint } {
  const tx = deserializeTransaction(rawTx);
  const mainnet = tx.transactionVersion === 0;
  const cond = tx.auth.authType === AuthType.Sponsored ? tx.auth.sponsorSpendingCondition : tx.auth.spendingCondition;
  return { payer: addressOf(cond, mainnet), fee: BigInt(cond.fee) };
}

/** c32 address of a spending condition: single-sig P2PKH → SP/ST, any other hash mode → SM/SN. */
function addressOf(cond: { hashMode: number; signer: string }, mainnet: boolean): string {
  const version = cond.hashMode === 0 ? (mainnet ? 22 : 26) : mainnet ? 20 : 21;
  return c32address(version, cond.signer);
}

/** Successful deploys: [contract_id, name, deployer, block, txid]. */
export function expectedContracts(blocks: RawBlock[]): string[][] {
  const out: string[][] = [];
  for (const b of blocks) {
    for (const t of b.transactions) {
      if (t.status !== "success" || t.raw_tx === "0x00") continue;
      const tx = deserializeTransaction(t.raw_tx);
      const payload = tx.payload as { payloadType: number; contractName?: { content: string } };
      // PayloadType.SmartContract = 1, VersionedSmartContract = 6
      if (payload.payloadType !== 1 && payload.payloadType !== 6) continue;
      const deployer = addressOf(tx.auth.spendingCondition, tx.transactionVersion === 0);
      const name = payload.contractName?.content ?? "";
      out.push([`${deployer}.${name}`, name, deployer, String(b.block_height), t.txid]);
    }
  }
  return out.sort();
}

/** flows rows of the registry prints: [topic, amount, sender, request_id, burn_height, bitcoin_txid]. */
export function expectedFlows(blocks: RawBlock[], registry: string): string[][] {
  const out: string[][] = [];
  for (const b of blocks) {
    for (const e of b.events) {
      if (!e.committed || e.type !== "contract_event" || e.contract_event.contract_identifier !== registry) continue;
      let v: ReturnType<typeof clarityToJson>;
      try {
        v = clarityToJson(hexToCV(e.contract_event.raw_value));
      } catch {
        continue; // undecodable print: no row
      }
      if (v === null || typeof v !== "object" || Array.isArray(v) || typeof v.topic !== "string") continue;
      const f = (k: string) => (v[k] === undefined || v[k] === null ? null : String(v[k]));
      out.push([v.topic, f("amount"), f("sender"), f("request-id"), f("burn-height"), f("bitcoin-txid")] as string[]);
    }
  }
  return out.sort();
}

/**
 * transfers rows of the sBTC token transfers: [sender, recipient, amount, event_index, memo].
 * event_index is the position in the block's indexed events ordered by (tx_index, node
 * event_index); memo is the buffer (0x-hex) of the token contract's print that is the very next
 * event of the same transaction (sbtc-token.transfer prints `(some buf)` memos), else null.
 */
export function expectedTransfers(blocks: RawBlock[], asset: string, token: string): (string | null)[][] {
  const out: (string | null)[][] = [];
  for (const b of blocks) {
    const txIndex = new Map<string, number>(b.transactions.map((t: RawBlock) => [t.txid, t.tx_index]));
    const events: RawBlock[] = b.events
      .filter((e: RawBlock) => NODE_TYPE_TO_OURS[e.type] !== undefined)
      .sort(
        (x: RawBlock, y: RawBlock) =>
          (txIndex.get(x.txid) ?? 0) - (txIndex.get(y.txid) ?? 0) || x.event_index - y.event_index,
      );
    events.forEach((e, ordinal) => {
      if (!e.committed || e.type !== "ft_transfer_event" || e.ft_transfer_event.asset_identifier !== asset) return;
      const ft = e.ft_transfer_event;
      const next = events[ordinal + 1];
      let memo: string | null = null;
      if (
        next?.txid === e.txid &&
        next.committed &&
        next.type === "contract_event" &&
        next.contract_event.contract_identifier === token
      ) {
        try {
          const cv = hexToCV(next.contract_event.raw_value);
          if (cv.type === "buffer") memo = `0x${cv.value}`;
        } catch {
          // undecodable print: no memo
        }
      }
      out.push([ft.sender, ft.recipient, ft.amount, String(ordinal), memo]);
    });
  }
  return out.sort();
}
