/**
 * The chain simulator: grows a Stacks chain over a burn chain and yields, in node order, the
 * `/new_burn_block` and `/new_block` payloads; now and then a competing branch (depth 1–3) appears
 * that either wins (the chain continues on it) or loses (state rewinds to the old tip).
 */
import { AccountBook } from "./accounts.js";
import type { MixKey } from "./actions.js";
import { type BurnBlock, burnBlockBody } from "./block-body.js";
import { type BlockRecord, type ChainEnv, type ProducedBlock, produceBlock } from "./block-producer.js";
import { simContracts } from "./contracts.js";
import { type SimulatorInput, type SimulatorOptions, resolveOptions } from "./options.js";
import { Prng, WeightedPicker } from "./prng.js";
import { ChainState } from "./state.js";
import { type GroundTruth, TruthRecorder } from "./truth.js";

export type ObserverPath = "/new_block" | "/new_burn_block";

export interface SimPayload {
  path: ObserverPath;
  body: Record<string, unknown>;
  /** Deterministic receive time (ISO), derived from block times, never the clock. */
  receivedAt: string;
}

/** Canonical blocks kept with their journals: enough to rewind the deepest fork (3) to its fork point. */
const RECENT_WINDOW = 4;
/** Chance that a new tenure is preceded by a burn block no Stacks block builds on. */
const EMPTY_BURN_BLOCK_RATE = 0.1;

export class ChainSimulator {
  readonly options: SimulatorOptions;
  private readonly env: ChainEnv;
  private readonly recorder: TruthRecorder | null;
  private recent: BlockRecord[] = [];
  private tip: BlockRecord;
  private burnTip: BurnBlock;
  private clockMs: number;
  private started = false;
  private finished = false;

  /** `recordTruth: false` keeps memory flat for endless runs (`--follow`). */
  constructor(input: SimulatorInput = {}, { recordTruth = true }: { recordTruth?: boolean } = {}) {
    this.options = resolveOptions(input);
    const rng = new Prng(this.options.seed);
    const accounts = new AccountBook(this.options.seed, this.options.network, this.options.accounts);
    this.env = {
      options: this.options,
      rng,
      state: new ChainState(),
      accounts,
      contracts: simContracts(this.options.network, accounts.deployer.address, {
        withPool: this.options.hotShare > 0,
      }),
      mix: new WeightedPicker<MixKey>(this.options.mix),
    };
    this.recorder = recordTruth ? new TruthRecorder() : null;
    this.burnTip = {
      hash: rng.hex(32),
      height: this.options.startBurnHeight - 1,
      time: this.options.startTime - 600,
      consensusHash: rng.hex(20),
      parentHash: rng.hex(32),
      minerTxid: rng.hex(32),
      burnAmount: 0,
    };
    this.tip = {
      header: {
        height: this.options.startHeight - 1,
        blockHash: `0x${rng.hex(32)}`,
        indexBlockHash: `0x${rng.hex(32)}`,
        parentBlockHash: `0x${rng.hex(32)}`,
        parentIndexBlockHash: `0x${rng.hex(32)}`,
        blockTime: this.burnTip.time,
        tenureHeight: 0,
        burn: this.burnTip,
        parentBurn: this.burnTip,
        minerSignature: "",
        signerSignatures: [],
      },
      tenureBlocks: 1,
      tenure: null,
      journal: [],
    };
    this.clockMs = this.options.startTime * 1000;
  }

  /** The payloads in node order; iterable once. */
  *payloads(): Generator<SimPayload> {
    if (this.started) throw new Error("a ChainSimulator generates its payloads once");
    this.started = true;
    const rng = this.env.rng;
    const lastHeight = this.options.startHeight + this.options.blocks - 1;
    let first = true;
    while (this.tip.header.height < lastHeight) {
      if (!first && rng.chance(this.options.forkRate) && this.recent.length >= 2) {
        yield* this.fork();
        continue;
      }
      yield* this.extend(first);
      first = false;
    }
    this.finished = true;
  }

  /** Ground truth over everything generated; call after the payloads were consumed. */
  truth(): GroundTruth {
    if (!this.recorder) throw new Error("truth recording was turned off");
    if (!this.finished) throw new Error("consume all payloads before asking for the truth");
    return this.recorder.compute({ ...this.options }, this.balances());
  }

  /** The ledger at the tip (the state always follows the tip), keyed like asset-holdings rows. */
  private balances(): Record<string, string> {
    const { state, accounts } = this.env;
    const totals = new Map<string, bigint>();
    const add = (key: string, amount: bigint) => totals.set(key, (totals.get(key) ?? 0n) + amount);
    for (const [address, amount] of state.stxBalances) add(`stx|STX|${address}`, amount);
    for (const [key, amount] of state.ftBalances) {
      const cut = key.lastIndexOf("|");
      const holder = key.slice(cut + 1);
      // A holder is a user index or a contract principal.
      const address = /^\d+$/.test(holder) ? accounts.user(Number(holder)).address : holder;
      add(`ft|${key.slice(0, cut)}|${address}`, amount);
    }
    const keys = [...totals.keys()].filter((key) => totals.get(key) !== 0n).sort();
    return Object.fromEntries(keys.map((key) => [key, String(totals.get(key))]));
  }

  private *extend(first: boolean): Generator<SimPayload> {
    const rng = this.env.rng;
    let burn = this.tip.header.burn;
    if (first || rng.chance(this.options.tenureRate)) {
      if (!first && rng.chance(EMPTY_BURN_BLOCK_RATE)) yield this.burnPayload(this.nextBurnBlock());
      burn = this.nextBurnBlock();
      yield this.burnPayload(burn);
    }
    const block = produceBlock(this.env, this.tip, burn, first);
    yield this.blockPayload(block);
    this.recent.push(block.record);
    if (this.recent.length > RECENT_WINDOW) this.recent.shift();
    this.tip = block.record;
  }

  /** A competing branch off a recent canonical block: winners get one block more than the old branch. */
  private *fork(): Generator<SimPayload> {
    const rng = this.env.rng;
    const depth = rng.between(1, Math.min(3, this.recent.length - 1));
    const won = rng.chance(0.5);
    const oldBranch = this.recent.slice(-depth);
    const forkPoint = this.recent[this.recent.length - depth - 1];
    for (let i = oldBranch.length - 1; i >= 0; i--) ChainState.undo(oldBranch[i].journal);

    const length = won ? depth + 1 : rng.between(1, depth);
    const branch: BlockRecord[] = [];
    let parent = forkPoint;
    for (let i = 0; i < length; i++) {
      // Siblings share the burn block of the block they compete with; the winner's extra block uses the burn tip.
      const burn = i < depth ? oldBranch[i].header.burn : this.burnTip;
      const block = produceBlock(this.env, parent, burn, false);
      yield this.blockPayload(block);
      branch.push(block.record);
      parent = block.record;
    }

    if (won) {
      this.recent = [...this.recent.slice(0, -depth), ...branch].slice(-RECENT_WINDOW);
      this.tip = parent;
    } else {
      for (let i = branch.length - 1; i >= 0; i--) ChainState.undo(branch[i].journal);
      for (const record of oldBranch) ChainState.redo(record.journal);
    }
    this.recorder?.addFork({
      forkPointHeight: forkPoint.header.height,
      depth,
      outcome: won ? "won" : "lost",
      branch: branch.map((b) => b.header.indexBlockHash),
    });
  }

  private nextBurnBlock(): BurnBlock {
    const rng = this.env.rng;
    const parent = this.burnTip;
    this.burnTip = {
      hash: rng.hex(32),
      height: parent.height + 1,
      time: parent.time + rng.between(60, 900),
      consensusHash: rng.hex(20),
      parentHash: parent.hash,
      minerTxid: rng.hex(32),
      burnAmount: rng.between(1, 60) * 1000,
    };
    return this.burnTip;
  }

  private burnPayload(burn: BurnBlock): SimPayload {
    if (this.recorder) {
      this.recorder.newBurnBlockCount++;
      this.recorder.payloadCount++;
    }
    return { path: "/new_burn_block", body: burnBlockBody(burn), receivedAt: this.receiveTime(burn.time) };
  }

  private blockPayload(block: ProducedBlock): SimPayload {
    if (this.recorder) {
      this.recorder.addBlock(block.summary);
      this.recorder.payloadCount++;
    }
    return { path: "/new_block", body: block.body, receivedAt: this.receiveTime(block.record.header.blockTime) };
  }

  /** A monotonic receive clock that follows the chain's own timestamps. */
  private receiveTime(eventSeconds: number): string {
    const rng = this.env.rng;
    this.clockMs = Math.max(this.clockMs + rng.between(3, 250), eventSeconds * 1000 + rng.between(50, 900));
    return new Date(this.clockMs).toISOString();
  }
}
