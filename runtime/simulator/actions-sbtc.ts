/**
 * sBTC actions with the registry's print tuples and the token events of the real contracts:
 * completed-deposit (+ sbtc-token ft_mint), withdrawal-create (ft_burn + locked ft_mint),
 * withdrawal-accept / withdrawal-reject (locked ft_burn + refund ft_mint), key-rotation.
 */
import { Cl, addressFromVersionHash, addressToString } from "@stacks/transactions";
import { bufferFromHex, principalCv } from "./clarity-hex.js";
import { type ActionContext, type TxPlan, contractCall, pickUser, userAccount } from "./action-kit.js";
import * as ev from "./events.js";
import type { Account } from "./accounts.js";
import type { Holder, WithdrawalRequest } from "./state.js";

const OK_TRUE = Cl.ok(Cl.bool(true));

export function sbtcAction(ctx: ActionContext): TxPlan {
  const r = ctx.rng.float();
  if (r < 0.05) return keyRotation(ctx);
  if (r < 0.35) {
    const request = findRequest(ctx);
    if (request) return ctx.rng.chance(0.7) ? acceptWithdrawal(ctx, request) : rejectWithdrawal(ctx, request);
  }
  if (r < 0.6) return createWithdrawal(ctx);
  return completeDeposit(ctx);
}

function completeDeposit(ctx: ActionContext, recipientIndex = pickUser(ctx)): TxPlan {
  return depositTo(ctx, recipientIndex, userAccount(ctx, recipientIndex));
}

/** complete-deposit-wrapper by the operator: sBTC minted to `recipient` (tracked under `holder`). */
export function depositTo(ctx: ActionContext, holder: Holder, recipient: Account, sats?: bigint): TxPlan {
  const { rng, state, contracts } = ctx;
  const drawn = BigInt(rng.between(10, 50_000)) * 1000n;
  const amount = sats ?? drawn;
  const bitcoinTxid = bufferFromHex(rng.hex(32));
  const outputIndex = Cl.uint(rng.between(0, 3));
  const burnHash = bufferFromHex(ctx.burnHash);
  const burnHeight = Cl.uint(ctx.burnHeight);
  const sweepTxid = bufferFromHex(rng.hex(32));
  const args = [
    bitcoinTxid,
    outputIndex,
    Cl.uint(amount),
    principalCv(recipient.address),
    burnHash,
    burnHeight,
    sweepTxid,
  ];
  const printed = Cl.tuple({
    amount: Cl.uint(amount),
    "bitcoin-txid": bitcoinTxid,
    "burn-hash": burnHash,
    "burn-height": burnHeight,
    "output-index": outputIndex,
    "sweep-txid": sweepTxid,
    topic: Cl.stringAscii("completed-deposit"),
  });
  const events = [ev.ftMint(contracts.sbtcAsset, recipient.address, amount), ev.print(contracts.sbtcRegistry, printed)];
  return contractCall(
    ctx,
    ctx.accounts.sbtcOperator,
    contracts.sbtcDeposit,
    "complete-deposit-wrapper",
    args,
    OK_TRUE,
    events,
    () => state.addBalance(contracts.sbtcAsset, holder, amount),
  );
}

/** initiate-withdrawal-request by a holder; a deposit to the picked user when they hold too little. */
function createWithdrawal(ctx: ActionContext): TxPlan {
  const { rng, state, contracts } = ctx;
  const requesterIndex = pickUser(ctx);
  const balance = state.balance(contracts.sbtcAsset, requesterIndex);
  const requester = userAccount(ctx, requesterIndex);
  const maxFee = BigInt(rng.between(500, 3000));
  const spendable = balance - maxFee;
  if (spendable < 1000n) return completeDeposit(ctx, requesterIndex);
  const amount = 1000n + (BigInt(rng.u32()) % (spendable - 999n));
  const locked = amount + maxFee;
  const id = state.counter("sbtcLastRequestId") + 1;
  const segwit = rng.chance(0.5);
  const recipient = Cl.tuple({
    hashbytes: bufferFromHex(rng.hex(segwit ? 32 : 20)),
    version: bufferFromHex(segwit ? "06" : rng.pick(["00", "01", "04"])),
  });
  const args = [Cl.uint(amount), recipient, Cl.uint(maxFee)];
  const printed = Cl.tuple({
    amount: Cl.uint(amount),
    "block-height": Cl.uint(ctx.burnHeight),
    "max-fee": Cl.uint(maxFee),
    recipient,
    "request-id": Cl.uint(id),
    sender: principalCv(requester.address),
    topic: Cl.stringAscii("withdrawal-create"),
  });
  const events = [
    ev.ftBurn(contracts.sbtcAsset, requester.address, locked),
    ev.ftMint(contracts.sbtcLockedAsset, requester.address, locked),
    ev.print(contracts.sbtcRegistry, printed),
  ];
  const request: WithdrawalRequest = { id, requester: requesterIndex, amount, maxFee };
  return contractCall(
    ctx,
    requester,
    contracts.sbtcWithdrawal,
    "initiate-withdrawal-request",
    args,
    Cl.ok(Cl.uint(id)),
    events,
    () => {
      state.bump("sbtcLastRequestId");
      state.addBalance(contracts.sbtcAsset, requesterIndex, -locked);
      state.addBalance(contracts.sbtcLockedAsset, requesterIndex, locked);
      state.set(state.withdrawals, id, request);
    },
  );
}

function findRequest(ctx: ActionContext): WithdrawalRequest | null {
  const last = ctx.state.counter("sbtcLastRequestId");
  if (last === 0) return null;
  for (let attempt = 0; attempt < 4; attempt++) {
    const request = ctx.state.withdrawals.get(ctx.rng.between(1, last));
    if (request) return request;
  }
  return null;
}

function acceptWithdrawal(ctx: ActionContext, request: WithdrawalRequest): TxPlan {
  const { rng, state, contracts } = ctx;
  const requester = userAccount(ctx, request.requester);
  const fee = BigInt(rng.between(0, Number(request.maxFee)));
  const locked = request.amount + request.maxFee;
  const refund = request.maxFee - fee;
  const bitcoinTxid = bufferFromHex(rng.hex(32));
  const signerBitmap = Cl.uint(rng.between(0, 0xffff));
  const outputIndex = Cl.uint(rng.between(1, 4));
  const burnHash = bufferFromHex(ctx.burnHash);
  const burnHeight = Cl.uint(ctx.burnHeight);
  const sweepTxid = bufferFromHex(rng.hex(32));
  const requestId = Cl.uint(request.id);
  const args = [requestId, bitcoinTxid, signerBitmap, outputIndex, Cl.uint(fee), burnHash, burnHeight, sweepTxid];
  const printed = Cl.tuple({
    "bitcoin-txid": bitcoinTxid,
    "burn-hash": burnHash,
    "burn-height": burnHeight,
    fee: Cl.uint(fee),
    "output-index": outputIndex,
    "request-id": requestId,
    "signer-bitmap": signerBitmap,
    "sweep-txid": sweepTxid,
    topic: Cl.stringAscii("withdrawal-accept"),
  });
  const events = [ev.ftBurn(contracts.sbtcLockedAsset, requester.address, locked)];
  if (refund > 0n) events.push(ev.ftMint(contracts.sbtcAsset, requester.address, refund));
  events.push(ev.print(contracts.sbtcRegistry, printed));
  return contractCall(
    ctx,
    ctx.accounts.sbtcOperator,
    contracts.sbtcWithdrawal,
    "accept-withdrawal-request",
    args,
    OK_TRUE,
    events,
    () => {
      state.addBalance(contracts.sbtcLockedAsset, request.requester, -locked);
      if (refund > 0n) state.addBalance(contracts.sbtcAsset, request.requester, refund);
      state.set(state.withdrawals, request.id, undefined);
    },
  );
}

function rejectWithdrawal(ctx: ActionContext, request: WithdrawalRequest): TxPlan {
  const { rng, state, contracts } = ctx;
  const requester = userAccount(ctx, request.requester);
  const locked = request.amount + request.maxFee;
  const requestId = Cl.uint(request.id);
  const signerBitmap = Cl.uint(rng.between(0, 0xffff));
  const printed = Cl.tuple({
    "request-id": requestId,
    "signer-bitmap": signerBitmap,
    topic: Cl.stringAscii("withdrawal-reject"),
  });
  const events = [
    ev.ftBurn(contracts.sbtcLockedAsset, requester.address, locked),
    ev.ftMint(contracts.sbtcAsset, requester.address, locked),
    ev.print(contracts.sbtcRegistry, printed),
  ];
  return contractCall(
    ctx,
    ctx.accounts.sbtcOperator,
    contracts.sbtcWithdrawal,
    "reject-withdrawal-request",
    [requestId, signerBitmap],
    OK_TRUE,
    events,
    () => {
      state.addBalance(contracts.sbtcLockedAsset, request.requester, -locked);
      state.addBalance(contracts.sbtcAsset, request.requester, locked);
      state.set(state.withdrawals, request.id, undefined);
    },
  );
}

/** rotate-keys-wrapper: new signer keys, aggregate key, threshold and the signers' multisig address. */
function keyRotation(ctx: ActionContext): TxPlan {
  const { rng, contracts } = ctx;
  const count = rng.between(3, 7);
  const keys = Array.from({ length: count }, () => bufferFromHex(`0${rng.pick(["2", "3"])}${rng.hex(32)}`));
  const aggregate = bufferFromHex(`0${rng.pick(["2", "3"])}${rng.hex(32)}`);
  const threshold = Cl.uint(Math.ceil((count * 7) / 10));
  const multisigVersion = ctx.network === "mainnet" ? 20 : 21;
  const newAddress = addressToString(addressFromVersionHash(multisigVersion, rng.hex(20)));
  const printed = Cl.tuple({
    "new-address": principalCv(newAddress),
    "new-aggregate-pubkey": aggregate,
    "new-keys": Cl.list(keys),
    "new-signature-threshold": threshold,
    topic: Cl.stringAscii("key-rotation"),
  });
  const args = [Cl.list(keys), aggregate, threshold];
  return contractCall(
    ctx,
    ctx.accounts.sbtcOperator,
    contracts.sbtcBootstrapSigners,
    "rotate-keys-wrapper",
    args,
    OK_TRUE,
    [ev.print(contracts.sbtcRegistry, printed)],
    () => {},
  );
}
