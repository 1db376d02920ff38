/**
 * Chain state as seen from the current branch tip (nonces, STX and token balances, STX locks, NFT
 * owners, BNS names, sBTC requests), with a per-block change journal so forks can rewind to a fork
 * point and replay. Balances refuse to go negative: the simulator never spends what is not held.
 */

/** One recorded change: the map, the key, and the values before and after (undefined = absent). */
type Change = [map: Map<unknown, unknown>, key: unknown, before: unknown, after: unknown];
export type Journal = Change[];

export interface BnsName {
  id: number;
  name: string;
  namespace: string;
  /** Index into the user accounts. */
  owner: number;
  registeredAt: number;
  renewalHeight: number;
  preorderHash: string | null;
}

export interface WithdrawalRequest {
  id: number;
  requester: number;
  amount: bigint;
  maxFee: bigint;
}

/** A token holder: a user account by index, or a contract principal (a pool) by its id. */
export type Holder = number | string;

/** STX locked by stacking until a burn height. */
export interface StxLock {
  amount: bigint;
  unlockHeight: number;
}

/** Keys of `counters`. */
export type CounterName = "bnsLastId" | "sbtcLastRequestId" | "deployCount" | "logCount" | `nftLastId:${number}`;

export class ChainState {
  /** Next nonce per account label. */
  readonly nonces = new Map<string, number>();
  /** `${asset}|${holder}` → balance. */
  readonly ftBalances = new Map<string, bigint>();
  /** address → µSTX: genesis, transfers, mints, burns, fees paid and matured miner rewards. */
  readonly stxBalances = new Map<string, bigint>();
  /** address → its stacking lock (kept after it ends; `spendableStx` ignores ended ones). */
  readonly stxLocks = new Map<string, StxLock>();
  /** `${collection}|${id}` → owning user. */
  readonly nftOwners = new Map<string, number>();
  /** BNS-V2 id → live name. */
  readonly bnsNames = new Map<number, BnsName>();
  readonly withdrawals = new Map<number, WithdrawalRequest>();
  readonly counters = new Map<CounterName, number>();
  private journal: Journal | null = null;

  /** Starts recording the changes of one block. */
  begin(): void {
    this.journal = [];
  }

  /** Stops recording and returns the block's changes. */
  end(): Journal {
    const journal = this.journal;
    if (!journal) throw new Error("ChainState.end() without begin()");
    this.journal = null;
    return journal;
  }

  set<K, V>(map: Map<K, V>, key: K, value: V | undefined): void {
    const before = map.get(key);
    if (value === undefined) map.delete(key);
    else map.set(key, value);
    this.journal?.push([map as Map<unknown, unknown>, key, before, value]);
  }

  counter(name: CounterName): number {
    return this.counters.get(name) ?? 0;
  }

  /** Increments a counter and returns the new value. */
  bump(name: CounterName): number {
    const next = this.counter(name) + 1;
    this.set(this.counters, name, next);
    return next;
  }

  takeNonce(label: string): number {
    const nonce = this.nonces.get(label) ?? 0;
    this.set(this.nonces, label, nonce + 1);
    return nonce;
  }

  balance(asset: string, holder: Holder): bigint {
    return this.ftBalances.get(`${asset}|${holder}`) ?? 0n;
  }

  addBalance(asset: string, holder: Holder, delta: bigint): void {
    const next = this.balance(asset, holder) + delta;
    if (next < 0n) throw new Error(`negative ${asset} balance for holder ${holder}`);
    this.set(this.ftBalances, `${asset}|${holder}`, next === 0n ? undefined : next);
  }

  stx(address: string): bigint {
    return this.stxBalances.get(address) ?? 0n;
  }

  addStx(address: string, delta: bigint): void {
    const next = this.stx(address) + delta;
    if (next < 0n) throw new Error(`negative STX balance for ${address}`);
    this.set(this.stxBalances, address, next === 0n ? undefined : next);
  }

  /** µSTX `address` may spend at `burnHeight`: its balance less what an unexpired lock holds. */
  spendableStx(address: string, burnHeight: number): bigint {
    const lock = this.stxLocks.get(address);
    const locked = lock && lock.unlockHeight > burnHeight ? lock.amount : 0n;
    return this.stx(address) - locked;
  }

  /** Rewinds a block's changes (latest first). */
  static undo(journal: Journal): void {
    for (let i = journal.length - 1; i >= 0; i--) {
      const [map, key, before] = journal[i];
      if (before === undefined) map.delete(key);
      else map.set(key, before);
    }
  }

  /** Re-applies a block's changes after an undo. */
  static redo(journal: Journal): void {
    for (const [map, key, , after] of journal) {
      if (after === undefined) map.delete(key);
      else map.set(key, after);
    }
  }
}
