/**
 * Chain state as seen from the current branch tip (nonces, balances, NFT owners, BNS names, sBTC
 * requests), with a per-block change journal so forks can rewind to a fork point and replay.
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

/** Keys of `counters`. */
export type CounterName = "bnsLastId" | "sbtcLastRequestId" | "deployCount" | "logCount" | `nftLastId:${number}`;

export class ChainState {
  /** Next nonce per account label. */
  readonly nonces = new Map<string, number>();
  /** `${asset}|${user}` → balance. */
  readonly ftBalances = new Map<string, bigint>();
  /** `${collection}|${id}` → owning user. */
  readonly nftOwners = new Map<string, number>();
  /** user → burn height at which the STX lock ends. */
  readonly stxLockedUntil = new Map<number, number>();
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

  balance(asset: string, user: number): bigint {
    return this.ftBalances.get(`${asset}|${user}`) ?? 0n;
  }

  addBalance(asset: string, user: number, delta: bigint): void {
    const next = this.balance(asset, user) + delta;
    if (next < 0n) throw new Error(`negative ${asset} balance for user ${user}`);
    this.set(this.ftBalances, `${asset}|${user}`, next === 0n ? undefined : next);
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
