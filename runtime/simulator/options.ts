/** Simulator options: defaults, validation, and the parsers the CLI uses for --mix and --rate. */
import { NETWORKS, type Network } from "../config/networks.js";
import { DEFAULT_MIX, MIX_KEYS, type MixKey } from "./actions.js";

export type SigningMode = "template" | "full";

/** Options as callers give them: `mix` lists the weights wanted (unlisted keys get 0). */
export type SimulatorInput = Partial<Omit<SimulatorOptions, "mix">> & { mix?: Partial<Record<MixKey, number>> };

export interface SimulatorOptions {
  /** Everything is derived from it: keys, hashes, choices, timestamps. */
  seed: string;
  /** Height the canonical chain grows by (fork blocks come on top); Infinity = until stopped. */
  blocks: number;
  /** Mean events per block: each block draws its target uniformly from [N/2, 3N/2]. */
  eventsPerBlock: number;
  /** User accounts (besides the deployer, miner and sBTC operator). */
  accounts: number;
  network: Network;
  /** Chance per block that a competing branch (depth 1–3) appears; half of them win. */
  forkRate: number;
  /** Relative action weights (see actions.ts); a given mix replaces the default one, unlisted keys get 0. */
  mix: Record<MixKey, number>;
  startHeight: number;
  startBurnHeight: number;
  /** Chance a contract call is aborted by a post-condition (events then carry committed:false). */
  abortRate: number;
  /** Chance a block opens a new tenure (a new burn block); 0.5 ≈ two Stacks blocks per burn block. */
  tenureRate: number;
  /** template: each account's real signature reused on its varied transactions (fast); full: every tx signed. */
  signing: SigningMode;
  /** Unix seconds of the first burn block. */
  startTime: number;
  /**
   * STX (whole) the first block mints to every account that sends transactions (users, deployer,
   * sBTC operator), as a devnet's genesis does; nobody ever spends more than they hold.
   */
  genesisStx: number;
  /**
   * Share of events (0–1) taken by a few hot contracts and holders: an sBTC/STX pool, sBTC and STX
   * moves among the first HOT_USERS users. 0 = every event from the mix, as before.
   */
  hotShare: number;
}

export const DEFAULT_OPTIONS: SimulatorOptions = {
  seed: "sluice",
  blocks: 100,
  eventsPerBlock: 30,
  accounts: 20,
  network: "devnet",
  forkRate: 0.02,
  mix: { ...DEFAULT_MIX },
  startHeight: 1,
  startBurnHeight: 100,
  abortRate: 0.01,
  tenureRate: 0.5,
  signing: "template",
  startTime: 1_735_689_600,
  genesisStx: 100_000_000,
  hotShare: 0,
};

/** Fewest genesis STX: the deployer pays the first block's deploy fees from them. */
export const MIN_GENESIS_STX = 10;

/** Fills defaults and checks ranges; throws RangeError naming the bad option. */
export function resolveOptions(input: SimulatorInput = {}): SimulatorOptions {
  const mix = input.mix ? { ...zeroMix(), ...input.mix } : { ...DEFAULT_MIX };
  const options: SimulatorOptions = { ...DEFAULT_OPTIONS, ...input, mix };
  const check = (ok: boolean, message: string) => {
    if (!ok) throw new RangeError(message);
  };
  check(
    options.blocks === Number.POSITIVE_INFINITY || (Number.isInteger(options.blocks) && options.blocks >= 1),
    "blocks must be an integer ≥ 1",
  );
  check(
    Number.isInteger(options.eventsPerBlock) && options.eventsPerBlock >= 0,
    "eventsPerBlock must be an integer ≥ 0",
  );
  check(Number.isInteger(options.accounts) && options.accounts >= 2, "accounts must be an integer ≥ 2");
  check((NETWORKS as readonly string[]).includes(options.network), `network must be one of ${NETWORKS.join(", ")}`);
  check(options.forkRate >= 0 && options.forkRate <= 1, "forkRate must be within [0, 1]");
  check(options.abortRate >= 0 && options.abortRate <= 1, "abortRate must be within [0, 1]");
  check(options.tenureRate > 0 && options.tenureRate <= 1, "tenureRate must be within (0, 1]");
  check(Number.isInteger(options.startHeight) && options.startHeight >= 1, "startHeight must be an integer ≥ 1");
  check(
    Number.isInteger(options.startBurnHeight) && options.startBurnHeight >= 1,
    "startBurnHeight must be an integer ≥ 1",
  );
  check(
    Number.isSafeInteger(options.genesisStx) && options.genesisStx >= MIN_GENESIS_STX,
    `genesisStx must be an integer ≥ ${MIN_GENESIS_STX}`,
  );
  check(options.hotShare >= 0 && options.hotShare <= 1, "hotShare must be within [0, 1]");
  check(options.signing === "template" || options.signing === "full", "signing must be template or full");
  for (const key of MIX_KEYS)
    check(Number.isFinite(options.mix[key]) && options.mix[key] >= 0, `mix weight of ${key} must be ≥ 0`);
  check(
    options.eventsPerBlock === 0 || MIX_KEYS.some((key) => options.mix[key] > 0),
    "mix needs at least one positive weight",
  );
  return options;
}

function zeroMix(): Record<MixKey, number> {
  return Object.fromEntries(MIX_KEYS.map((key) => [key, 0])) as Record<MixKey, number>;
}

/** `stx_transfer=5,ft_transfer=3` → those weights (the caller's mix; unlisted keys get 0). */
export function parseMix(text: string): Partial<Record<MixKey, number>> {
  const mix: Partial<Record<MixKey, number>> = {};
  for (const part of text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [key, value, extra] = part.split("=").map((s) => s.trim());
    if (!(MIX_KEYS as readonly string[]).includes(key)) {
      throw new Error(`unknown mix key "${key}" (known: ${MIX_KEYS.join(", ")})`);
    }
    const weight = Number(value);
    if (extra !== undefined || value === undefined || value === "" || !Number.isFinite(weight) || weight < 0) {
      throw new Error(`mix entry "${part}" must be key=<weight ≥ 0>`);
    }
    mix[key as MixKey] = weight;
  }
  return mix;
}

export type Rate = { perSecond: number } | "max";

/** `1/s`, `0.5/s`, `20` (per second) or `max`. */
export function parseRate(text: string): Rate {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "max") return "max";
  const match = /^(\d+(?:\.\d+)?|\.\d+)(?:\/s)?$/.exec(trimmed);
  const perSecond = match ? Number(match[1]) : Number.NaN;
  if (!(perSecond > 0)) throw new Error(`rate "${text}" must look like 1/s, 0.5/s or max`);
  return { perSecond };
}
