/**
 * Flow of a partition's pieces from the thread that prepares them to the one that COPYs them
 * (partition-worker.ts → partition-preparer.ts), with memory bounded whatever the partition's
 * size: the sender has at most `limit` bytes unacknowledged, and the receiver acknowledges a
 * piece's bytes when it is taken out to be written. Pure: no threads or I/O of its own.
 */

/** Sender side: `send` waits while more than `limit` bytes sent are not yet acknowledged. */
export class SendWindow {
  private unacknowledged = 0;
  private waiting: (() => void) | null = null;

  constructor(private readonly limit: number) {}

  get inFlight(): number {
    return this.unacknowledged;
  }

  /** Counts `bytes` as sent (after `post` sent them), then waits until the window has room again. */
  async send(bytes: number, post: () => void): Promise<void> {
    post();
    this.unacknowledged += bytes;
    while (this.unacknowledged > this.limit) await new Promise<void>((resolve) => (this.waiting = resolve));
  }

  acknowledge(bytes: number): void {
    this.unacknowledged -= bytes;
    const wake = this.waiting;
    this.waiting = null;
    wake?.();
  }
}

/**
 * Receiver side: pieces arrive (put), are taken in order by one async iteration, and each one
 * taken is acknowledged with its bytes. After `end` the iteration finishes once the queue is
 * empty; after `fail` it throws, after the pieces that came before the failure.
 */
export class PieceQueue<T> {
  private readonly items: { item: T; bytes: number }[] = [];
  private ended = false;
  private failure: { error: unknown } | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly onTaken: (bytes: number) => void) {}

  put(item: T, bytes: number): void {
    if (this.ended || this.failure) return;
    this.items.push({ item, bytes });
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  /** Ignored once ended (a worker that exits after its last piece). */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failure ??= { error };
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const next = this.items.shift();
      if (next !== undefined) {
        this.onTaken(next.bytes);
        yield next.item;
        continue;
      }
      if (this.failure) throw this.failure.error;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
