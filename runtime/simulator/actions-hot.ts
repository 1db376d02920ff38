/**
 * The hot mix: a few contracts and holders that take a large share of the events, as DEX pools and
 * busy sBTC/STX accounts do on mainnet. An sBTC/STX constant-product pool is seeded in the first
 * block (an sBTC deposit to the deployer, then its add-liquidity); hot actions are swaps with the
 * pool and sBTC deposits, sBTC transfers and STX transfers among the first `hotUsers` users. The
 * pool pays out less than its reserve and traders spend only what they hold.
 */
import { Cl } from "@stacks/transactions";
import {
  type ActionContext,
  MAX_CALL_FEE,
  type TxPlan,
  contractCall,
  pickHotUser,
  pickOtherUser,
  spendableStx,
  userAccount,
} from "./action-kit.js";
import { transferFt, transferStx } from "./actions-assets.js";
import { depositTo } from "./actions-sbtc.js";
import { principalCv } from "./clarity-hex.js";
import type { AssetContract } from "./contracts.js";
import * as ev from "./events.js";
import { MICRO_STX } from "./genesis.js";

/** sBTC the pool starts with (10 BTC in sats); it gets half the deployer's spendable STX beside it. */
export const POOL_SEED_SATS = 1_000_000_000n;
/** The most STX one swap spends (10,000 STX in µSTX). */
const MAX_SWAP_USTX = 10_000n * MICRO_STX;

/** Picks the next hot action. */
export function hotAction(ctx: ActionContext): TxPlan {
  const r = ctx.rng.float();
  if (r < 0.45) return swap(ctx);
  if (r < 0.75) return hotSbtcTransfer(ctx);
  if (r < 0.9) {
    const from = pickHotUser(ctx);
    return transferStx(ctx, from, pickOtherHotUser(ctx, from));
  }
  const to = pickHotUser(ctx);
  return depositTo(ctx, to, userAccount(ctx, to));
}

/** The first-block deposit that gives the deployer the pool's sBTC. */
export function poolSeedDeposit(ctx: ActionContext): TxPlan {
  const deployer = ctx.accounts.deployer;
  return depositTo(ctx, deployer.address, deployer, POOL_SEED_SATS);
}

/** The deployer's add-liquidity: all its sBTC and half the STX it may spend besides the fee. */
export function addLiquidity(ctx: ActionContext): TxPlan {
  const { state, contracts } = ctx;
  const deployer = ctx.accounts.deployer;
  const sbtc = state.balance(contracts.sbtcAsset, deployer.address);
  const stx = (spendableStx(ctx, deployer) - BigInt(MAX_CALL_FEE)) / 2n;
  const reserveSbtc = state.balance(contracts.sbtcAsset, contracts.pool) + sbtc;
  const reserveStx = state.stx(contracts.pool) + stx;
  const printed = Cl.tuple({
    provider: principalCv(deployer.address),
    "reserve-sbtc": Cl.uint(reserveSbtc),
    "reserve-stx": Cl.uint(reserveStx),
    "sbtc-amount": Cl.uint(sbtc),
    "stx-amount": Cl.uint(stx),
    topic: Cl.stringAscii("add-liquidity"),
  });
  const events = [
    ev.ftTransfer(contracts.sbtcAsset, deployer.address, contracts.pool, sbtc),
    ev.stxTransfer(deployer.address, contracts.pool, stx, ""),
    ev.print(contracts.pool, printed),
  ];
  const args = [Cl.uint(sbtc), Cl.uint(stx)];
  return contractCall(ctx, deployer, contracts.pool, "add-liquidity", args, Cl.ok(Cl.bool(true)), events, () => {
    state.addBalance(contracts.sbtcAsset, deployer.address, -sbtc);
    state.addBalance(contracts.sbtcAsset, contracts.pool, sbtc);
  });
}

/** Constant-product output for `amountIn` with a 0.3% fee: always below `reserveOut`. */
export function swapOutput(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (reserveIn <= 0n || reserveOut <= 0n) return 0n;
  return (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n);
}

/** A hot user sells part of its sBTC for STX, or buys sBTC with STX; a deposit to it when neither works. */
function swap(ctx: ActionContext): TxPlan {
  const { rng, state, contracts } = ctx;
  const index = pickHotUser(ctx);
  const trader = userAccount(ctx, index);
  const pool = contracts.pool;
  const reserveSbtc = state.balance(contracts.sbtcAsset, pool);
  const reserveStx = state.stx(pool);
  const held = state.balance(contracts.sbtcAsset, index);
  const room = spendableStx(ctx, trader) - BigInt(MAX_CALL_FEE);
  const sell = held > 0n && (room < MICRO_STX || rng.chance(0.5));
  let amountIn: bigint;
  let out: bigint;
  if (sell) {
    amountIn = 1n + (BigInt(rng.u32()) % held);
    out = swapOutput(amountIn, reserveSbtc, reserveStx);
  } else {
    const cap = room < MAX_SWAP_USTX ? room : MAX_SWAP_USTX;
    if (cap < MICRO_STX) return depositTo(ctx, index, trader);
    amountIn = 1n + (BigInt(rng.u32()) % cap);
    out = swapOutput(amountIn, reserveStx, reserveSbtc);
  }
  if (out === 0n) return depositTo(ctx, index, trader);
  const sbtcIn = sell ? amountIn : -out;
  const printed = Cl.tuple({
    "amount-in": Cl.uint(amountIn),
    "amount-out": Cl.uint(out),
    "reserve-sbtc": Cl.uint(reserveSbtc + sbtcIn),
    "reserve-stx": Cl.uint(sell ? reserveStx - out : reserveStx + amountIn),
    "token-in": Cl.stringAscii(sell ? "sbtc" : "stx"),
    topic: Cl.stringAscii("swap"),
    trader: principalCv(trader.address),
  });
  const events = sell
    ? [
        ev.ftTransfer(contracts.sbtcAsset, trader.address, pool, amountIn),
        ev.stxTransfer(pool, trader.address, out, ""),
      ]
    : [
        ev.stxTransfer(trader.address, pool, amountIn, ""),
        ev.ftTransfer(contracts.sbtcAsset, pool, trader.address, out),
      ];
  events.push(ev.print(pool, printed));
  const fn = sell ? "swap-sbtc-for-stx" : "swap-stx-for-sbtc";
  const args = [Cl.uint(amountIn), Cl.uint((out * 99n) / 100n)];
  return contractCall(ctx, trader, pool, fn, args, Cl.ok(Cl.uint(out)), events, () => {
    state.addBalance(contracts.sbtcAsset, index, -sbtcIn);
    state.addBalance(contracts.sbtcAsset, pool, sbtcIn);
  });
}

/** sBTC from one hot user to another; a swap for sBTC when the sender holds none. */
function hotSbtcTransfer(ctx: ActionContext): TxPlan {
  const sbtc: AssetContract = { contractId: ctx.contracts.sbtcToken, assetIdentifier: ctx.contracts.sbtcAsset };
  const from = pickHotUser(ctx);
  if (ctx.state.balance(sbtc.assetIdentifier, from) === 0n) return swap(ctx);
  return transferFt(ctx, sbtc, from, pickOtherHotUser(ctx, from));
}

/** Another hot user than `not` (any other user when there is only one hot user). */
function pickOtherHotUser(ctx: ActionContext, not: number): number {
  if (ctx.hotUsers < 2) return pickOtherUser(ctx, not);
  const i = ctx.rng.below(ctx.hotUsers - 1);
  return i >= not ? i + 1 : i;
}
