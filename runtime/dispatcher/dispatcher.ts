/**
 * The delivery worker (DESIGN.md §5). One loop per process:
 *   wake (NOTIFY at block commit, a freed slot, the poll timer) → claim due rows for every endpoint
 *   that has room (per-endpoint cap = 2 × concurrency, refilled when half empty; none while paused
 *   or while its circuit is open) → start attempts up to each endpoint's concurrency → record the
 *   finished attempts in batches.
 * Endpoints never share slots, so a slow or dead endpoint only ever holds its own. A claimed row
 * is leased for its timeout plus a margin: a worker killed mid-delivery leaves the row to be
 * claimed again when the lease ends (at-least-once; receivers dedupe on `webhook-id`).
 * Several processes can run this loop on one PostgreSQL database (claims use SKIP LOCKED); the
 * per-endpoint concurrency and the breaker are per process.
 */
import { randomBytes } from "node:crypto";
import type { Db } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import { type EndpointConfig, prepareAttempt, settleAttempt } from "./attempt.js";
import {
  type BreakerPolicy,
  type Circuit,
  DEFAULT_BREAKER_POLICY,
  recordOutcome,
  sendAllowance,
  startProbe,
} from "./circuit.js";
import { expandBatches } from "./expander.js";
import { createEndpointAgents, type PostOutcome, postDelivery } from "./http-post.js";
import {
  type AttemptResult,
  type ClaimCap,
  type ClaimedRow,
  claimDueRows,
  completeAttempts,
  releaseRows,
  WEBHOOK_CHANGED_PREFIX,
  WEBHOOK_CHANNEL,
} from "./outbox-store.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import type { SecretBox } from "./secret-box.js";
import type { Signer } from "./signing.js";
import { listWebhooks, listWebhooksById, liveSecrets, saveCircuit, type WebhookRow } from "./webhook-store.js";

export interface DispatcherOptions {
  db: Db;
  logger: Logger;
  signer: Signer;
  secrets: SecretBox;
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  now?: () => number;
  random?: () => number;
  retry?: Partial<RetryPolicy>;
  breaker?: Partial<BreakerPolicy>;
  /** Claim check when nothing woke the loop (rows whose backoff ended). */
  pollIntervalMs?: number;
  /** How often webhook settings are re-read besides change notifications. */
  refreshIntervalMs?: number;
  /** Lease of a claimed row = its timeout + this. */
  leaseMarginMs?: number;
  /** Deliveries in flight at once across all endpoints. */
  maxInFlight?: number;
  /** How long finished attempts may wait to be recorded together. */
  flushIntervalMs?: number;
  /** The HTTP step (tests may wrap it). */
  post?: typeof postDelivery;
  /** Deliveries expanded from batches per transaction (see expander.ts). */
  expandRows?: number;
  /** Hears each finished attempt of the delivery loop (metrics); test deliveries are not reported. */
  onAttempt?: (result: AttemptResult) => void;
  /** WEBHOOK_MAX_PENDING: a webhook's outstanding deliveries beyond which its new ones are held. */
  maxPending?: number;
}

export interface Dispatcher {
  start(): Promise<void>;
  /** Stops claiming, lets attempts in flight finish (up to `graceMs`), records them, gives back the rest. */
  stop(graceMs?: number): Promise<void>;
  /**
   * Looks for due rows now (e.g. after an API change); with a webhook id, re-reads that webhook
   * alone before (a change to one webhook costs one row, however many there are).
   */
  wake(webhookId?: string): void;
  /** One round without the loop (tests with an injected clock): claim, deliver, record. */
  runOnce(): Promise<number>;
  /** Delivers a claimed row now, outside the loop and the breaker (test deliveries). */
  deliverNow(row: ClaimedRow, webhook: WebhookRow): Promise<AttemptResult>;
  readonly retryPolicy: RetryPolicy;
  readonly breakerPolicy: BreakerPolicy;
}

interface EndpointState {
  config: EndpointConfig & { concurrency: number; ordered: boolean; active: boolean };
  circuit: Circuit;
  inflight: number;
  queue: ClaimedRow[];
  /** More rows may be due in the database than were last claimed. */
  backlog: boolean;
  /** Id the last full claim ended at (null: scan from the head). */
  cursor: string | null;
  fenceInFlight: boolean;
  saving: Promise<void>;
  /** The sealed secrets `config.secrets` were opened from: unchanged, they are not opened again. */
  sealedKey: string;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, logger, signer } = options;
  const clock = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const retryPolicy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const breakerPolicy: BreakerPolicy = { ...DEFAULT_BREAKER_POLICY, ...options.breaker };
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const refreshIntervalMs = options.refreshIntervalMs ?? 2000;
  const leaseMarginMs = options.leaseMarginMs ?? 5000;
  const maxInFlight = options.maxInFlight ?? 512;
  const flushIntervalMs = options.flushIntervalMs ?? 5;
  const post = options.post ?? postDelivery;
  const expandRows = options.expandRows ?? 5000;
  const maxPending = options.maxPending ?? Number.POSITIVE_INFINITY;
  /** Claims and recorded attempts on PostgreSQL commit without waiting for the WAL flush (outbox-store.ts). */
  const asyncCommit = db.kind === "postgres";
  /** Webhooks with held shares at the last expansion: their finished deliveries wake the expander. */
  let throttled = new Set<string>();
  const workerToken = `wrk_${randomBytes(6).toString("hex")}`;
  let claimSeq = 0;

  const endpoints = new Map<string, EndpointState>();
  const agents = createEndpointAgents();
  let lastRefresh = Number.NEGATIVE_INFINITY;
  let refreshWanted = true;
  /** Webhooks changed through the API since the last read: re-read alone unless everything is. */
  const changedWebhooks = new Set<string>();
  let globalInflight = 0;
  /** A cursor scan came short: scan again from the head before waiting. */
  let rescan = false;
  /** Where the next claim round starts among the endpoints (round robin). */
  let rotation = 0;
  /** Counts backlog marks: a claim that came short clears an endpoint's backlog only if none came meanwhile. */
  let marks = 0;
  const inflightDone = new Set<Promise<void>>();
  /** Endpoints holding claimed rows that found every global slot taken. */
  const starved = new Set<EndpointState>();

  let running = false;
  let loopDone: Promise<void> | null = null;
  let expandDone: Promise<void> | null = null;
  let expandWake: (() => void) | null = null;
  let expandWanted = true;
  let unlisten: (() => Promise<void>) | null = null;
  let wakeUp: (() => void) | null = null;
  let woken = false;

  const results: AttemptResult[] = [];
  let flushTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;

  function wake(markBacklog = true): void {
    if (markBacklog) {
      marks++;
      for (const e of endpoints.values()) e.backlog = true;
    }
    woken = true;
    wakeUp?.();
  }

  /** Every webhook read again (at start, now and then, after a lost notification). */
  async function refresh(): Promise<void> {
    // Changes announced before the read are in its snapshot.
    changedWebhooks.clear();
    const rows = await listWebhooks(db);
    const seen = new Set<string>();
    for (const w of rows) {
      seen.add(w.id);
      applyWebhook(w);
    }
    for (const [id, e] of endpoints) {
      if (!seen.has(id) && e.inflight === 0) endpoints.delete(id);
      e.cursor = null; // now and then from the head: retries that came due behind the cursor
    }
    lastRefresh = clock();
    refreshWanted = false;
  }

  /** The webhooks changed through the API since the last read, read alone. */
  async function refreshChanged(): Promise<void> {
    const ids = [...changedWebhooks];
    changedWebhooks.clear();
    const rows = await listWebhooksById(db, ids);
    for (const w of rows) {
      applyWebhook(w);
      const e = endpoints.get(w.id);
      if (e) e.backlog = true;
    }
    const found = new Set(rows.map((w) => w.id));
    for (const id of ids) {
      // Deleted: dropped once nothing is in flight (else at the next full read).
      if (!found.has(id) && (endpoints.get(id)?.inflight ?? 1) === 0) endpoints.delete(id);
    }
  }

  /** A webhook row into its endpoint's state (created on first sight). */
  function applyWebhook(w: WebhookRow): void {
    const nowMs = clock();
    const previousLive =
      w.previousSecretSealed !== null &&
      w.previousSecretExpiresAt !== null &&
      w.previousSecretExpiresAt.getTime() > nowMs;
    const sealedKey = previousLive ? `${w.secretSealed} ${w.previousSecretSealed}` : w.secretSealed;
    const known = endpoints.get(w.id);
    let secrets: readonly string[];
    try {
      secrets = known?.sealedKey === sealedKey ? known.config.secrets : liveSecrets(w, options.secrets, nowMs);
    } catch (err) {
      logger.error({
        msg: "webhook secret cannot be opened (wrong WEBHOOK_SECRET_KEY?)",
        webhook_id: w.id,
        error: err,
      });
      return;
    }
    const config = {
      id: w.id,
      url: w.url,
      format: w.format,
      timeoutMs: w.timeoutMs,
      maxAttempts: w.maxAttempts,
      secrets,
      // An ordered webhook: one at a time, each after the previous one finished.
      concurrency: w.ordered ? 1 : w.concurrency,
      ordered: w.ordered,
      active: w.status === "active",
    };
    const e = endpoints.get(w.id);
    if (e) {
      e.config = config;
      e.sealedKey = sealedKey;
    } else {
      const circuit: Circuit = {
        state: w.circuit.state,
        failures: w.circuit.failures,
        openedAt: w.circuit.openedAt?.getTime() ?? null,
        probing: false,
      };
      endpoints.set(w.id, {
        config,
        circuit,
        inflight: 0,
        queue: [],
        backlog: true,
        cursor: null,
        fenceInFlight: false,
        saving: Promise.resolve(),
        sealedKey,
      });
    }
  }

  function setCircuit(e: EndpointState, next: Circuit): void {
    const prev = e.circuit;
    e.circuit = next;
    if (prev.state === next.state && prev.failures === next.failures) return;
    if (prev.state !== next.state) {
      const level = next.state === "open" ? "warn" : "info";
      logger[level]({ msg: `circuit ${next.state}`, webhook_id: e.config.id, consecutive_failures: next.failures });
    }
    // Persist in order; visible in the webhook record.
    e.saving = e.saving.then(() =>
      saveCircuit(db, e.config.id, next).catch((err) =>
        logger.warn({ msg: "circuit state not saved", webhook_id: e.config.id, error: err }),
      ),
    );
  }

  /** Claims for every endpoint with room; returns how many rows were claimed. */
  async function claimRound(): Promise<number> {
    const nowMs = clock();
    const caps: ClaimCap[] = [];
    let budget = maxInFlight * 2 - globalInflight - queuedTotal();
    // Round robin: each round starts where the last one's budget ran out, so with more endpoints
    // than one round's budget covers, every endpoint gets its turn.
    const all = [...endpoints.values()];
    const start = all.length ? rotation % all.length : 0;
    let uncovered = -1;
    for (let k = 0; k < all.length; k++) {
      const i = (start + k) % all.length;
      const e = all[i];
      if (!e.config.active) {
        if (e.queue.length) void giveBack(e);
        continue;
      }
      const { circuit, allowed } = sendAllowance(e.circuit, nowMs, breakerPolicy);
      if (circuit !== e.circuit) setCircuit(e, circuit);
      if (!e.backlog || allowed === 0) continue;
      if (budget <= 0) {
        if (uncovered === -1) uncovered = i;
        continue;
      }
      // An ordered webhook holds one row at a time: the next is claimable once this one finished.
      const window = e.config.ordered ? 1 : Math.min(allowed, e.config.concurrency * 2);
      const held = e.inflight + e.queue.length;
      // Refill when half empty, so each claim brings a batch (a half-open probe is a batch of one).
      if (held > Math.floor(window / 2) && allowed === Number.POSITIVE_INFINITY) continue;
      const cap = Math.min(window - held, budget);
      if (cap <= 0) continue;
      budget -= cap;
      caps.push({
        webhookId: e.config.id,
        cap,
        leaseMs: e.config.timeoutMs + leaseMarginMs,
        afterId: e.cursor,
        ordered: e.config.ordered,
      });
    }
    rotation = uncovered === -1 ? 0 : uncovered;
    // Endpoints with a backlog were left out for lack of budget: look again without waiting.
    if (uncovered !== -1 && caps.length) rescan = true;
    if (!caps.length) {
      for (const e of endpoints.values()) if (e.queue.length) startQueued(e);
      return 0;
    }
    const token = `${workerToken}:${++claimSeq}`;
    const marksBefore = marks;
    const claimed = await claimDueRows(db, caps, new Date(nowMs), token, { asyncCommit });
    const last = new Map<string, { n: number; row: ClaimedRow }>();
    for (const row of claimed) {
      last.set(row.webhookId, { n: (last.get(row.webhookId)?.n ?? 0) + 1, row });
      const e = endpoints.get(row.webhookId);
      if (e) e.queue.push(row);
      else void releaseRows(db, [row]).catch(() => {});
    }
    for (const c of caps) {
      const e = endpoints.get(c.webhookId);
      if (!e) continue;
      const got = last.get(c.webhookId);
      if (got && got.n === c.cap) {
        e.cursor = got.row.id; // more may follow: continue from here
      } else if (e.cursor) {
        e.cursor = null; // came short after a cursor: look once more from the head
        rescan = true;
      } else if (marks === marksBefore) {
        // Rows recorded or finished while the claim ran (a wake meanwhile) may be due: keep looking.
        e.backlog = false;
      }
    }
    for (const e of endpoints.values()) startQueued(e);
    return claimed.length;
  }

  const queuedTotal = () => {
    let n = 0;
    for (const e of endpoints.values()) n += e.queue.length;
    return n;
  };

  function startQueued(e: EndpointState): void {
    while (e.queue.length && e.inflight < e.config.concurrency && globalInflight < maxInFlight && e.config.active) {
      if (e.fenceInFlight) return;
      const head = e.queue[0];
      if (head.fence && e.inflight > 0) return; // a fence goes alone, after everything before it
      if (e.circuit.state === "open") return void giveBack(e);
      if (e.circuit.state === "half_open") {
        if (e.circuit.probing) return;
        setCircuit(e, startProbe(e.circuit));
      }
      e.queue.shift();
      launch(e, head);
    }
    // Rows left waiting for a global slot: started as soon as any attempt ends (see launch).
    if (e.queue.length && globalInflight >= maxInFlight && e.config.active) starved.add(e);
  }

  async function giveBack(e: EndpointState): Promise<void> {
    const rows = e.queue.splice(0);
    try {
      await releaseRows(db, rows);
    } catch (err) {
      logger.warn({
        msg: "could not release claimed rows; they return when their lease ends",
        webhook_id: e.config.id,
        error: err,
      });
    }
  }

  function launch(e: EndpointState, row: ClaimedRow): void {
    e.inflight++;
    globalInflight++;
    if (row.fence) e.fenceInFlight = true;
    const task = attempt(e, row).finally(() => {
      e.inflight--;
      globalInflight--;
      if (row.fence) e.fenceInFlight = false;
      inflightDone.delete(task);
      startQueued(e);
      // A global slot freed: endpoints that were waiting for one go next, oldest first.
      for (const waiting of starved) {
        if (globalInflight >= maxInFlight) break;
        starved.delete(waiting);
        startQueued(waiting);
      }
      if (e.backlog) wake(false);
    });
    inflightDone.add(task);
  }

  async function attempt(e: EndpointState, row: ClaimedRow): Promise<void> {
    const result = await runAttempt(row, e.config, e.config.id);
    options.onAttempt?.(result);
    setCircuit(e, recordOutcome(e.circuit, result.success, clock(), breakerPolicy));
    if (e.circuit.state === "open" && e.queue.length) void giveBack(e);
    results.push(result);
    scheduleFlush();
  }

  async function runAttempt(
    row: ClaimedRow,
    config: EndpointConfig & { concurrency: number },
    agentKey: string,
  ): Promise<AttemptResult> {
    const startedAt = clock();
    let outcome: PostOutcome;
    try {
      const request = prepareAttempt(row, config, signer, startedAt);
      outcome = await post(config.url, request.headers, request.body, {
        timeoutMs: config.timeoutMs,
        allowPrivate: options.allowPrivate,
        pool: agents.pool(agentKey, config.url, config.concurrency, options.allowPrivate),
        agent: config.url.startsWith("https:") ? agents.get(agentKey, config.url, config.concurrency) : undefined,
        now: clock,
      });
    } catch (err) {
      outcome = {
        status: null,
        retryAfter: undefined,
        excerpt: null,
        error: `delivery failed: ${(err as Error).message}`,
        durationMs: clock() - startedAt,
      };
    }
    const result = settleAttempt(row, config, outcome, startedAt, retryPolicy, random);
    const log = {
      webhook_id: row.webhookId,
      delivery_id: row.deliveryId,
      attempt: result.attempt,
      duration_ms: result.durationMs,
    };
    if (result.success) logger.debug({ msg: "delivered", ...log, status: outcome.status });
    else if (result.next.status === "dead")
      logger.warn({
        msg: "delivery dead after its last attempt",
        ...log,
        status: outcome.status,
        error: outcome.error,
      });
    else
      logger.info({
        msg: "delivery attempt failed",
        ...log,
        status: outcome.status,
        error: outcome.error,
        retry_at: result.next.status === "pending" ? result.next.at.toISOString() : undefined,
      });
    return result;
  }

  function scheduleFlush(): void {
    if (flushTimer || flushing) return;
    flushTimer = setTimeout(() => void flush(), results.length >= 128 ? 0 : flushIntervalMs);
  }

  function flush(): Promise<void> {
    if (flushTimer) {
      clearTimeout(flushTimer);
      flushTimer = null;
    }
    if (flushing) return flushing.then(() => flush());
    if (!results.length) return Promise.resolve();
    const batch = results.splice(0);
    flushing = completeAttempts(db, batch, { asyncCommit })
      .then(() => {
        // Finished rows may unblock a fence (or the rows behind one): look again at once.
        marks++;
        let madeRoom = false;
        for (const r of batch) {
          const e = endpoints.get(r.webhookId);
          if (e) e.backlog = true;
          if (r.next.status !== "pending" && throttled.has(r.webhookId)) madeRoom = true;
        }
        // A throttled webhook has room again: its held shares go out.
        if (madeRoom && running) wakeExpanderForRoom();
        if (running) wake(false);
      })
      .catch((err) => {
        // The rows stay leased and are delivered again when the lease ends (at-least-once).
        logger.error({ msg: "could not record delivery attempts", count: batch.length, error: err });
      })
      .finally(() => {
        flushing = null;
        if (results.length) scheduleFlush();
      });
    return flushing;
  }

  /**
   * Expands batches into outbox rows while there are any (one process at a time does; the others
   * find the lock taken and wait for the next notification), waking the delivery loop after each
   * transaction that wrote rows. Runs beside the delivery loop so neither waits for the other.
   */
  async function expandLoop(): Promise<void> {
    while (running) {
      let more = false;
      let busy = false;
      try {
        expandWanted = false;
        const r = await expandBatches(db, expandRows, maxPending);
        if (!r.busy) throttled = r.throttled;
        if (r.rows) wake();
        more = r.more;
        busy = r.busy;
      } catch (err) {
        if (!running) return;
        logger.error({ msg: "webhook batch expansion failed; retrying", error: err });
        busy = true;
      }
      if (more && !busy) continue;
      if (expandWanted && !busy) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          expandWake = null;
          resolve();
        }, pollIntervalMs);
        expandWake = () => {
          clearTimeout(timer);
          expandWake = null;
          resolve();
        };
      });
    }
  }

  function wakeExpander(): void {
    expandWanted = true;
    expandWake?.();
  }

  /** Finished deliveries of throttled webhooks wake the expander at most every 50 ms (each wake counts their backlogs). */
  let roomTimer: NodeJS.Timeout | null = null;
  function wakeExpanderForRoom(): void {
    if (roomTimer) return;
    roomTimer = setTimeout(() => {
      roomTimer = null;
      if (running) wakeExpander();
    }, 50);
  }

  async function waitForWake(ms: number): Promise<boolean> {
    if (woken) {
      woken = false;
      return true;
    }
    const woke = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        wakeUp = null;
        resolve(false);
      }, ms);
      wakeUp = () => {
        clearTimeout(timer);
        wakeUp = null;
        resolve(true);
      };
    });
    woken = false;
    return woke;
  }

  async function loop(): Promise<void> {
    while (running) {
      try {
        if (refreshWanted || clock() - lastRefresh >= refreshIntervalMs) await refresh();
        else if (changedWebhooks.size > 0) await refreshChanged();
        rescan = false;
        if ((await claimRound()) > 0 || rescan) continue;
        const woke = await waitForWake(pollIntervalMs);
        if (!woke) {
          for (const e of endpoints.values()) {
            e.backlog = true; // rows whose backoff ended
            e.cursor = null;
          }
        }
      } catch (err) {
        if (!running) return;
        logger.error({ msg: "dispatcher round failed; retrying", error: err });
        await waitForWake(1000);
      }
    }
  }

  return {
    retryPolicy,
    breakerPolicy,
    async start() {
      if (running) return;
      running = true;
      unlisten = await db.listen(
        WEBHOOK_CHANNEL,
        (payload) => {
          if (payload === "webhooks") refreshWanted = true;
          else if (payload.startsWith(WEBHOOK_CHANGED_PREFIX)) {
            changedWebhooks.add(payload.slice(WEBHOOK_CHANGED_PREFIX.length));
            wakeExpander();
            // Only the changed webhook may have rows newly due (refreshChanged marks it).
            wake(false);
            return;
          }
          wakeExpander();
          wake();
        },
        {
          // Notifications sent while the listening connection was down are lost: look at everything.
          onResume() {
            refreshWanted = true;
            wakeExpander();
            wake();
          },
        },
      );
      loopDone = loop();
      expandDone = expandLoop();
    },

    async stop(graceMs = 5000) {
      running = false;
      if (roomTimer) clearTimeout(roomTimer);
      roomTimer = null;
      wakeUp?.();
      expandWake?.();
      await loopDone;
      await expandDone;
      await unlisten?.().catch(() => {});
      unlisten = null;
      const pending = [...inflightDone];
      if (pending.length) {
        await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, graceMs).unref())]);
      }
      await flush();
      for (const e of endpoints.values()) if (e.queue.length) await giveBack(e);
      await Promise.all([...endpoints.values()].map((e) => e.saving));
      agents.destroy();
    },

    wake: (webhookId?: string) => {
      if (webhookId === undefined) {
        refreshWanted = true;
        wake();
      } else {
        changedWebhooks.add(webhookId);
        wake(false);
      }
    },

    async runOnce() {
      for (;;) {
        const r = await expandBatches(db, expandRows, maxPending);
        if (!r.busy) throttled = r.throttled;
        if (!r.more || r.busy) break;
      }
      await refresh();
      for (const e of endpoints.values()) e.backlog = true;
      let total = 0;
      for (;;) {
        rescan = false;
        const n = await claimRound();
        total += n;
        await Promise.allSettled([...inflightDone]);
        if (n === 0 && !rescan && !queuedTotal()) break;
      }
      await flush();
      await Promise.all([...endpoints.values()].map((e) => e.saving));
      return total;
    },

    async deliverNow(row, webhook) {
      const config = {
        id: webhook.id,
        url: webhook.url,
        format: webhook.format,
        timeoutMs: webhook.timeoutMs,
        maxAttempts: 1,
        secrets: liveSecrets(webhook, options.secrets, clock()),
        concurrency: webhook.concurrency,
      };
      const result = await runAttempt(row, config, `test:${webhook.id}`);
      await completeAttempts(db, [result]);
      return result;
    },
  };
}
