/** STX, SIP-010 and SIP-009 actions, generic prints and throwaway deploys; STX amounts stay within what the sender may spend. */
import { Cl } from "@stacks/transactions";
import { asciiHex, bufferFromHex, cvRaw, principalCv } from "./clarity-hex.js";
import {
  type ActionContext,
  MAX_CALL_FEE,
  type TxPlan,
  ZERO_COST,
  contractCall,
  pickOtherUser,
  pickUser,
  spendableStx,
  userAccount,
} from "./action-kit.js";
import { throwawayContract } from "./contract-sources.js";
import type { AssetContract } from "./contracts.js";
import * as ev from "./events.js";
import { MICRO_STX } from "./genesis.js";
import { tokenTransferPayload, versionedContractPayload } from "./tx-wire.js";

const EMPTY_MEMO = "00".repeat(34);
const OK_TRUE = Cl.ok(Cl.bool(true));
const WORDS = ["coffee", "rent", "invoice", "gift", "lunch", "refund", "tip", "payout", "swap", "bounty"];
/** Burn blocks per reward cycle, for unlock heights. */
const CYCLE_LENGTH = { mainnet: 2100, testnet: 1050, devnet: 20 } as const;

export function stxTransfer(ctx: ActionContext): TxPlan {
  const from = pickUser(ctx);
  return transferStx(ctx, from, pickOtherUser(ctx, from));
}

/** A token transfer of up to 5 STX, never more than the sender can spend once the fee is paid. */
export function transferStx(ctx: ActionContext, from: number, to: number): TxPlan {
  const { rng } = ctx;
  const sender = userAccount(ctx, from);
  const recipient = userAccount(ctx, to);
  const drawn = BigInt(rng.between(1, 50_000) * 100);
  const memo = rng.chance(0.3) ? asciiHex(`${rng.pick(WORDS)}-${rng.below(10_000)}`).padEnd(68, "0") : EMPTY_MEMO;
  const fee = rng.between(180, 3000);
  // A sender too poor for any amount keeps the drawn one: the block producer drops the plan.
  const room = spendableStx(ctx, sender) - BigInt(fee);
  const amount = room > 0n && room < drawn ? room : drawn;
  return {
    sender,
    txType: "token_transfer",
    payloadHex: tokenTransferPayload(recipient.principalHex, amount, memo),
    fee,
    result: "0x0703",
    events: [ev.stxTransfer(sender.address, recipient.address, amount, memo)],
    contractInterface: null,
    cost: ZERO_COST,
    canAbort: false,
    apply: () => {},
  };
}

export function stxMint(ctx: ActionContext): TxPlan {
  const caller = userAccount(ctx, pickUser(ctx));
  const recipient = userAccount(ctx, pickUser(ctx));
  const amount = ctx.rng.between(1, 1000) * 1_000_000;
  const args = [principalCv(recipient.address), Cl.uint(amount)];
  return contractCall(
    ctx,
    caller,
    ctx.contracts.utils,
    "airdrop",
    args,
    OK_TRUE,
    [ev.stxMint(recipient.address, amount)],
    () => {},
  );
}

export function stxBurn(ctx: ActionContext): TxPlan {
  const sender = userAccount(ctx, pickUser(ctx));
  const drawn = BigInt(ctx.rng.between(1, 10_000) * 10);
  const room = spendableStx(ctx, sender) - BigInt(MAX_CALL_FEE);
  const amount = room > 0n && room < drawn ? room : drawn;
  return contractCall(
    ctx,
    sender,
    ctx.contracts.utils,
    "burn-stx",
    [Cl.uint(amount)],
    OK_TRUE,
    [ev.stxBurn(sender.address, amount)],
    () => {},
  );
}

/**
 * pox-4 stack-stx by an unlocked user, locking no more than it may spend besides the fee; falls back
 * to a transfer when the picks are all locked or too poor to lock 1 STX.
 */
export function stxLock(ctx: ActionContext): TxPlan {
  const { rng, state } = ctx;
  for (let attempt = 0; attempt < 4; attempt++) {
    const stacker = userAccount(ctx, pickUser(ctx));
    const lock = state.stxLocks.get(stacker.address);
    if (lock && lock.unlockHeight > ctx.burnHeight) continue;
    const room = spendableStx(ctx, stacker) - BigInt(MAX_CALL_FEE);
    if (room < MICRO_STX) continue;
    const drawn = BigInt(rng.between(100, 5000)) * 1_000_000_000n;
    const amount = drawn <= room ? drawn : room - (room % MICRO_STX);
    const lockPeriod = rng.between(1, 12);
    const unlockHeight = ctx.burnHeight + lockPeriod * CYCLE_LENGTH[ctx.network];
    const signerKey = bufferFromHex(`02${rng.hex(32)}`);
    const args = [
      Cl.uint(amount),
      Cl.tuple({ version: bufferFromHex("04"), hashbytes: bufferFromHex(rng.hex(20)) }),
      Cl.uint(ctx.burnHeight),
      Cl.uint(lockPeriod),
      Cl.none(),
      signerKey,
      Cl.uint(amount),
      Cl.uint(rng.between(1, 1_000_000)),
    ];
    const result = Cl.ok(
      Cl.tuple({
        "lock-amount": Cl.uint(amount),
        "signer-key": signerKey,
        stacker: principalCv(stacker.address),
        "unlock-burn-height": Cl.uint(unlockHeight),
      }),
    );
    const events = [ev.stxLock(ctx.contracts.pox4, stacker.address, amount, unlockHeight)];
    return contractCall(ctx, stacker, ctx.contracts.pox4, "stack-stx", args, result, events, () =>
      state.set(state.stxLocks, stacker.address, { amount, unlockHeight }),
    );
  }
  return stxTransfer(ctx);
}

export function ftMint(ctx: ActionContext, recipientIndex = pickUser(ctx)): TxPlan {
  const { rng, state } = ctx;
  const token = rng.pick(ctx.contracts.fungibleTokens);
  const recipient = userAccount(ctx, recipientIndex);
  const amount = BigInt(rng.between(1, 100_000)) * 10_000n;
  const args = [Cl.uint(amount), principalCv(recipient.address)];
  const events = [ev.ftMint(token.assetIdentifier, recipient.address, amount)];
  return contractCall(ctx, ctx.accounts.deployer, token.contractId, "mint", args, OK_TRUE, events, () =>
    state.addBalance(token.assetIdentifier, recipientIndex, amount),
  );
}

/** SIP-010 transfer (sim tokens or sBTC) by a holder (a mint to the picked user when they hold nothing), sometimes with a memo print. */
export function ftTransfer(ctx: ActionContext): TxPlan {
  const { rng, state } = ctx;
  const token = rng.pick(ctx.contracts.transferableTokens);
  const from = pickUser(ctx);
  if (state.balance(token.assetIdentifier, from) === 0n) return ftMint(ctx, from);
  return transferFt(ctx, token, from, pickOtherUser(ctx, from));
}

/** Part of `from`'s balance of `token` (which must not be 0) to `to`, sometimes with a memo print. */
export function transferFt(ctx: ActionContext, token: AssetContract, from: number, to: number): TxPlan {
  const { rng, state } = ctx;
  const balance = state.balance(token.assetIdentifier, from);
  const sender = userAccount(ctx, from);
  const recipient = userAccount(ctx, to);
  const amount = 1n + (BigInt(rng.u32()) % balance);
  const memo = rng.chance(0.2) ? bufferFromHex(asciiHex(`${rng.pick(WORDS)}-${rng.below(1000)}`)) : null;
  const args = [
    Cl.uint(amount),
    principalCv(sender.address),
    principalCv(recipient.address),
    memo ? Cl.some(memo) : Cl.none(),
  ];
  const events = [ev.ftTransfer(token.assetIdentifier, sender.address, recipient.address, amount)];
  if (memo) events.push(ev.print(token.contractId, memo));
  return contractCall(ctx, sender, token.contractId, "transfer", args, OK_TRUE, events, () => {
    state.addBalance(token.assetIdentifier, from, -amount);
    state.addBalance(token.assetIdentifier, to, amount);
  });
}

export function ftBurn(ctx: ActionContext): TxPlan {
  const { rng, state } = ctx;
  const token = rng.pick(ctx.contracts.fungibleTokens);
  const ownerIndex = pickUser(ctx);
  const balance = state.balance(token.assetIdentifier, ownerIndex);
  if (balance === 0n) return ftMint(ctx, ownerIndex);
  const owner = userAccount(ctx, ownerIndex);
  const amount = 1n + (BigInt(rng.u32()) % balance);
  const args = [Cl.uint(amount), principalCv(owner.address)];
  const events = [ev.ftBurn(token.assetIdentifier, owner.address, amount)];
  return contractCall(ctx, ctx.accounts.deployer, token.contractId, "burn", args, OK_TRUE, events, () =>
    state.addBalance(token.assetIdentifier, ownerIndex, -amount),
  );
}

export function nftMint(ctx: ActionContext): TxPlan {
  const { rng, state } = ctx;
  const c = rng.below(ctx.contracts.nftCollections.length);
  const collection = ctx.contracts.nftCollections[c];
  const recipientIndex = pickUser(ctx);
  const recipient = userAccount(ctx, recipientIndex);
  const id = state.counter(`nftLastId:${c}`) + 1;
  const events = [ev.nftMint(collection.assetIdentifier, cvRaw(Cl.uint(id)), recipient.address)];
  const args = [principalCv(recipient.address)];
  return contractCall(
    ctx,
    ctx.accounts.deployer,
    collection.contractId,
    "mint",
    args,
    Cl.ok(Cl.uint(id)),
    events,
    () => {
      state.bump(`nftLastId:${c}`);
      state.set(state.nftOwners, `${c}|${id}`, recipientIndex);
    },
  );
}

/** A live token of some collection, or null after a few misses. */
function findLiveNft(ctx: ActionContext): { c: number; id: number; owner: number } | null {
  const { rng, state } = ctx;
  for (let attempt = 0; attempt < 4; attempt++) {
    const c = rng.below(ctx.contracts.nftCollections.length);
    const last = state.counter(`nftLastId:${c}`);
    if (last === 0) continue;
    const id = rng.between(1, last);
    const owner = state.nftOwners.get(`${c}|${id}`);
    if (owner !== undefined) return { c, id, owner };
  }
  return null;
}

export function nftTransfer(ctx: ActionContext): TxPlan {
  const { state } = ctx;
  const token = findLiveNft(ctx);
  if (!token) return nftMint(ctx);
  const collection = ctx.contracts.nftCollections[token.c];
  const to = pickOtherUser(ctx, token.owner);
  const sender = userAccount(ctx, token.owner);
  const recipient = userAccount(ctx, to);
  const args = [Cl.uint(token.id), principalCv(sender.address), principalCv(recipient.address)];
  const events = [
    ev.nftTransfer(collection.assetIdentifier, cvRaw(Cl.uint(token.id)), sender.address, recipient.address),
  ];
  return contractCall(ctx, sender, collection.contractId, "transfer", args, OK_TRUE, events, () =>
    state.set(state.nftOwners, `${token.c}|${token.id}`, to),
  );
}

export function nftBurn(ctx: ActionContext): TxPlan {
  const { state } = ctx;
  const token = findLiveNft(ctx);
  if (!token) return nftMint(ctx);
  const collection = ctx.contracts.nftCollections[token.c];
  const owner = userAccount(ctx, token.owner);
  const events = [ev.nftBurn(collection.assetIdentifier, cvRaw(Cl.uint(token.id)), owner.address)];
  return contractCall(ctx, owner, collection.contractId, "burn", [Cl.uint(token.id)], OK_TRUE, events, () =>
    state.set(state.nftOwners, `${token.c}|${token.id}`, undefined),
  );
}

/** sim-utils `log`: a print tuple {message, n, sender, topic: "log"}. */
export function printLog(ctx: ActionContext): TxPlan {
  const { rng, state } = ctx;
  const sender = userAccount(ctx, pickUser(ctx));
  const n = state.counter("logCount") + 1;
  const message = `${rng.pick(WORDS)} #${rng.below(100_000)}`;
  const value = Cl.tuple({
    message: Cl.stringAscii(message),
    n: Cl.uint(n),
    sender: principalCv(sender.address),
    topic: Cl.stringAscii("log"),
  });
  const events = [ev.print(ctx.contracts.utils, value)];
  return contractCall(
    ctx,
    sender,
    ctx.contracts.utils,
    "log",
    [Cl.stringAscii(message)],
    Cl.ok(Cl.uint(n)),
    events,
    () => state.bump("logCount"),
  );
}

/** A small Clarity 3 contract deployed by a user (no events). */
export function deployContract(ctx: ActionContext): TxPlan {
  const { rng, state } = ctx;
  const sender = userAccount(ctx, pickUser(ctx));
  const n = state.counter("deployCount") + 1;
  const source = throwawayContract(`sim-contract-${n}`, rng.below(1_000_000));
  return {
    sender,
    txType: "versioned_smart_contract",
    payloadHex: versionedContractPayload(source.name, source.code, 3),
    fee: rng.between(5, 50) * 1000,
    result: "0x0703",
    events: [],
    contractInterface: source.abi,
    cost: {
      read_count: 0,
      read_length: 0,
      runtime: rng.between(1000, 20000),
      write_count: 2,
      write_length: source.code.length + 200,
    },
    canAbort: false,
    apply: () => state.bump("deployCount"),
  };
}
