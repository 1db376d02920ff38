/**
 * Produces one Stacks block on a given parent and burn block: tenure-change + coinbase when a tenure
 * opens (with the miner reward that matures then), in the first block the genesis funding, the setup
 * deploys and (with a hot share) the pool's seeding, then actions until the block's event target is
 * met, a `hotShare` of the events from hot actions. Every transaction's sender pays its fee and the
 * STX its events move; an action it cannot pay for is not placed. Events are numbered block-wide in
 * execution order, then emitted shuffled, as a node does.
 */
import { createHash } from "node:crypto";
import type { Account, AccountBook } from "./accounts.js";
import { type ActionContext, type TxPlan, ZERO_COST } from "./action-kit.js";
import { type MixKey, runAction } from "./actions.js";
import { addLiquidity, hotAction, poolSeedDeposit } from "./actions-hot.js";
import { type BlockHeader, type BurnBlock, type MaturedReward, type NodeTx, newBlockBody } from "./block-body.js";
import { cvToPlainJson } from "./clarity-hex.js";
import type { SimContracts } from "./contracts.js";
import { nodeEvent } from "./events.js";
import { genesisPlan } from "./genesis.js";
import { maturingRewards, openTenure, rewardTotal, type TenureLink } from "./miner-rewards.js";
import type { SimulatorOptions } from "./options.js";
import type { Prng, WeightedPicker } from "./prng.js";
import type { ChainState, Journal } from "./state.js";
import { applyStxMoves, canPay, stxEventMoves } from "./stx-ledger.js";
import { type BlockSummary, emptyEventCounts } from "./truth.js";
import {
  ANCHOR_ANY,
  ANCHOR_ON_CHAIN_ONLY,
  POST_CONDITION_ALLOW,
  POST_CONDITION_DENY,
  assembleTx,
  nakamotoCoinbasePayload,
  resignTx,
  tenureChangePayload,
  txidOf,
  versionedContractPayload,
} from "./tx-wire.js";

export interface ChainEnv {
  options: SimulatorOptions;
  rng: Prng;
  state: ChainState;
  accounts: AccountBook;
  contracts: SimContracts;
  mix: WeightedPicker<MixKey>;
}

export interface BlockRecord {
  header: BlockHeader;
  /** Blocks of this block's tenure up to and including it. */
  tenureBlocks: number;
  /** The tenure this block belongs to, on its branch (null before the first). */
  tenure: TenureLink | null;
  journal: Journal;
}

/** Busy users of the hot mix (the first ones; fewer when there are fewer users). */
export const HOT_USERS = 3;

export interface ProducedBlock {
  record: BlockRecord;
  body: Record<string, unknown>;
  summary: BlockSummary;
}

/** A transaction about to be placed in the block (a planned action or a system transaction). */
type TxDraft = Pick<TxPlan, "sender" | "payloadHex" | "fee" | "result" | "events" | "contractInterface" | "cost"> & {
  txType: string;
  anchorMode: typeof ANCHOR_ON_CHAIN_ONLY | typeof ANCHOR_ANY;
  postConditionMode: typeof POST_CONDITION_ALLOW | typeof POST_CONDITION_DENY;
};

export function produceBlock(
  env: ChainEnv,
  parent: BlockRecord,
  burn: BurnBlock,
  withSetupDeploys: boolean,
): ProducedBlock {
  const { rng, state, options, contracts } = env;
  const height = parent.header.height + 1;
  const tenureStart = burn.hash !== parent.header.burn.hash;
  const blockHash = `0x${rng.hex(32)}`;
  const indexBlockHash = `0x${createHash("sha512-256")
    .update(Buffer.from(blockHash.slice(2) + burn.consensusHash, "hex"))
    .digest("hex")}`;
  const summary: BlockSummary = {
    height,
    indexBlockHash,
    blockHash,
    parentIndexBlockHash: parent.header.indexBlockHash,
    txCount: 0,
    txCountByType: {},
    abortedTxCount: 0,
    eventCounts: emptyEventCounts(),
    uncommittedEventCount: 0,
    bnsOps: [],
    sbtcPrints: [],
  };
  const txs: NodeTx[] = [];
  const events: Record<string, unknown>[] = [];
  let fees = 0n;

  /** Appends a transaction and its events; its sender pays the fee; a committed one then moves STX and applies its plan. */
  const place = (draft: TxDraft, aborted: boolean, plan?: TxPlan) => {
    const nonce = state.takeNonce(draft.sender.label);
    const postConditionMode = aborted ? POST_CONDITION_DENY : draft.postConditionMode;
    let rawTx = assembleTx(options.network, draft.sender, {
      nonce,
      fee: draft.fee,
      anchorMode: draft.anchorMode,
      postConditionMode,
      payloadHex: draft.payloadHex,
    });
    // The boot address has no key: its genesis transaction keeps the all-zero signature.
    if (options.signing === "full" && draft.sender.privateKey) rawTx = resignTx(rawTx, draft.sender.privateKey);
    const txid = txidOf(rawTx);
    fees += BigInt(draft.fee);
    if (draft.fee > 0) state.addStx(draft.sender.address, -BigInt(draft.fee));
    txs.push({
      contract_interface: draft.contractInterface,
      execution_cost: draft.cost,
      raw_result: draft.result,
      raw_tx: rawTx,
      status: aborted ? "abort_by_post_condition" : "success",
      tx_index: txs.length,
      txid,
    });
    summary.txCount++;
    summary.txCountByType[draft.txType] = (summary.txCountByType[draft.txType] ?? 0) + 1;
    if (aborted) summary.abortedTxCount++;
    for (const event of draft.events) {
      const eventIndex = events.length;
      events.push(nodeEvent(event, eventIndex, txid, !aborted));
      if (aborted) {
        summary.uncommittedEventCount++;
        continue;
      }
      summary.eventCounts[event.type]++;
      if (event.contractId === contracts.sbtcRegistry && event.printValue) {
        const value = cvToPlainJson(event.printValue);
        const topic =
          typeof value === "object" && value !== null && !Array.isArray(value) ? String(value.topic) : "unknown";
        summary.sbtcPrints.push({
          topic,
          print: { txId: txid, blockHeight: height, indexBlockHash, eventIndex, value },
        });
      }
    }
    if (!aborted) applyStxMoves(state, stxEventMoves(draft.events));
    if (plan && !aborted) {
      plan.apply();
      if (plan.bnsOps) summary.bnsOps.push(...plan.bnsOps);
    }
  };

  const ctx: ActionContext = {
    rng,
    state,
    accounts: env.accounts,
    contracts,
    network: options.network,
    height,
    burnHeight: burn.height,
    burnHash: burn.hash,
    hotUsers: Math.min(HOT_USERS, env.accounts.userCount),
  };
  const placePlan = (plan: TxPlan, aborted = false) => {
    const postConditionMode = plan.txType === "contract_call" ? POST_CONDITION_ALLOW : POST_CONDITION_DENY;
    place({ ...plan, anchorMode: ANCHOR_ANY, postConditionMode }, aborted, plan);
  };

  state.begin();
  const opening = tenureStart ? tenureDrafts(env, parent, burn) : null;
  if (opening) for (const draft of opening.drafts) place(draft, false);
  if (withSetupDeploys) {
    placePlan(genesisPlan(options.network, env.accounts, options.genesisStx));
    for (const source of contracts.deploys) {
      place(
        systemDraft(
          env.accounts.deployer,
          "versioned_smart_contract",
          versionedContractPayload(source.name, source.code, 3),
          {
            fee: rng.between(20, 200) * 1000,
            anchorMode: ANCHOR_ANY,
            contractInterface: source.abi,
            cost: {
              read_count: 0,
              read_length: 0,
              runtime: rng.between(10_000, 400_000),
              write_count: 3,
              write_length: source.code.length * 2,
            },
          },
        ),
        false,
      );
    }
    if (options.hotShare > 0) {
      placePlan(poolSeedDeposit(ctx));
      placePlan(addLiquidity(ctx));
    }
  }

  const mean = options.eventsPerBlock;
  const target = mean === 0 || env.mix.empty ? 0 : rng.between(Math.ceil(mean / 2), Math.floor((mean * 3) / 2));
  let produced = 0;
  let hotProduced = 0;
  for (let guard = 0; produced < target && guard < target * 2 + 8; guard++) {
    // Hot actions keep their events at `hotShare` of the block's, counted as the block goes.
    const hot = options.hotShare > 0 && hotProduced <= options.hotShare * produced;
    const plan = hot ? hotAction(ctx) : runAction(env.mix.pick(rng), ctx);
    if (!canPay(state, burn.height, plan.sender.address, plan.fee, plan.events)) continue;
    placePlan(plan, plan.canAbort && rng.chance(options.abortRate));
    produced += plan.events.length;
    if (hot) hotProduced += plan.events.length;
  }
  // Rewards maturing in this block are paid after its transactions: none of them spends them.
  const matured: MaturedReward[] = opening ? maturingRewards(parent.tenure) : [];
  for (const reward of matured) state.addStx(reward.recipient, rewardTotal(reward));
  const journal = state.end();
  rng.shuffle(events);

  const blockTime = tenureStart
    ? Math.max(burn.time, parent.header.blockTime) + rng.between(1, 30)
    : parent.header.blockTime + rng.between(2, 20);
  const header: BlockHeader = {
    height,
    blockHash,
    indexBlockHash,
    parentBlockHash: parent.header.blockHash,
    parentIndexBlockHash: parent.header.indexBlockHash,
    blockTime,
    tenureHeight: parent.header.tenureHeight + (tenureStart ? 1 : 0),
    burn,
    parentBurn: parent.header.burn,
    minerSignature: `0x${signatureHex(rng)}`,
    signerSignatures: [signatureHex(rng), signatureHex(rng), signatureHex(rng)],
  };
  let tenure = parent.tenure;
  if (opening) {
    tenure = openTenure(parent.tenure, {
      blockHash,
      indexBlockHash,
      miner: env.accounts.miner.address,
      recipient: opening.recipient,
      fees,
    });
  }
  return {
    record: { header, tenureBlocks: tenureStart ? 1 : parent.tenureBlocks + 1, tenure, journal },
    body: newBlockBody(options.network, header, txs, events, matured),
    summary,
  };
}

/** Tenure change (block found) and Nakamoto coinbase, both from the miner; `recipient` is the coinbase's. */
function tenureDrafts(env: ChainEnv, parent: BlockRecord, burn: BurnBlock): { drafts: TxDraft[]; recipient: string } {
  const { rng, accounts } = env;
  const miner = accounts.miner;
  const tenureChange = tenureChangePayload({
    tenureConsensusHash: burn.consensusHash,
    previousTenureConsensusHash: parent.header.burn.consensusHash,
    burnViewConsensusHash: burn.consensusHash,
    previousTenureEnd: parent.header.indexBlockHash.slice(2),
    previousTenureBlocks: parent.tenureBlocks,
    cause: 0,
    pubkeyHash: miner.hash160,
  });
  const recipient = rng.chance(0.5) ? accounts.user(rng.below(accounts.userCount)) : null;
  const coinbase = nakamotoCoinbasePayload("00".repeat(32), recipient?.principalHex ?? null, rng.hex(80));
  return {
    drafts: [
      systemDraft(miner, "tenure_change", tenureChange, { anchorMode: ANCHOR_ON_CHAIN_ONLY }),
      systemDraft(miner, "nakamoto_coinbase", coinbase, { anchorMode: ANCHOR_ON_CHAIN_ONLY }),
    ],
    recipient: (recipient ?? miner).address,
  };
}

function systemDraft(
  sender: Account,
  txType: string,
  payloadHex: string,
  extra: Partial<Pick<TxDraft, "fee" | "anchorMode" | "contractInterface" | "cost">>,
): TxDraft {
  return {
    sender,
    txType,
    payloadHex,
    fee: extra.fee ?? 0,
    result: "0x0703",
    events: [],
    contractInterface: extra.contractInterface ?? null,
    cost: extra.cost ?? ZERO_COST,
    anchorMode: extra.anchorMode ?? ANCHOR_ANY,
    postConditionMode: POST_CONDITION_DENY,
  };
}

/** A 65-byte recoverable-signature-shaped hex string (recovery id + r + s). */
function signatureHex(rng: Prng): string {
  return `0${rng.below(2)}${rng.hex(64)}`;
}
