/**
 * Webhooks at scale, crash-safe (DESIGN.md §5): 1,000 chain webhooks over a simulated chain with
 * forks, the service (a child process) killed with kill -9 three times while batches are expanded
 * and deliveries sent, restarted on the same database each time. The expectation is computed here
 * from the simulator's payloads, its ground truth (the canonical blocks) and the triggers:
 * - each webhook's receiver, folding its deliveries in arrival order (applies add, rollbacks remove
 *   what they list), ends with exactly the canonical committed events its triggers match;
 * - a rollback lists only applies that webhook received before it;
 * - an event reaches a webhook under one `webhook-id` unless a rollback withdrew it in between;
 * - ordered webhooks (every tenth) see applies in block order, restarting at the fork point
 *   after each rollback;
 * - at the end nothing is pending and no batch is left.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDb } from "../../../runtime/db/pglite.js";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { type ServiceProcess, startServiceProcess } from "../../support/cli.js";
import { createPgDatabase, TEST_DB_KIND } from "../../support/db.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { postObserver, waitFor } from "../../support/service.js";
import { foldChainDeliveries, webhookClient } from "../../support/webhooks.js";

const WEBHOOKS = 1000;

// biome-ignore lint/suspicious/noExplicitAny: raw node payload JSON
type Raw = any;

/** One trigger kind: the node event type it listens to, the trigger's field and the payload field it tests. */
interface Kind {
  type: string;
  node: string;
  field?: string;
  payloadField?: string;
}
const KINDS: Kind[] = [
  { type: "stx_transfer", node: "stx_transfer_event", field: "sender", payloadField: "sender" },
  { type: "ft_mint", node: "ft_mint_event", field: "recipient", payloadField: "recipient" },
  { type: "nft_mint", node: "nft_mint_event", field: "recipient", payloadField: "recipient" },
  { type: "print_event", node: "contract_event", field: "contractId", payloadField: "contract_identifier" },
  { type: "ft_burn", node: "ft_burn_event", field: "assetIdentifier", payloadField: "asset_identifier" },
];
const WILDCARD: Kind = { type: "stx_burn", node: "stx_burn_event" };

interface Hook {
  name: string;
  path: string;
  ordered: boolean;
  triggers: Record<string, string>[];
  /** The same triggers as [kind, value] for the expectation. */
  tests: [Kind, string | undefined][];
}

describe("1,000 webhooks, forks, kill -9 three times", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-webhooks-scale-"));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("delivers exactly the expected (webhook, dedupe key) set, in order across reorgs", {
    timeout: 900_000,
  }, async () => {
    const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE: "true", NETWORK: "devnet", LOG_LEVEL: "info" };
    if (TEST_DB_KIND === "postgres") {
      const created = await createPgDatabase();
      cleanups.push(created.drop);
      env.DATABASE_URL = created.url;
    } else {
      env.DATA_DIR = path.join(root, "data");
    }
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());

    const { payloads, truth } = simulateChain({
      seed: "webhooks-scale",
      blocks: 24,
      eventsPerBlock: 20,
      forkRate: 0.3,
    });
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    const blocks: Raw[] = requests.filter((r) => r.path === "/new_block").map((r) => JSON.parse(r.body));
    expect(truth.forks.filter((f) => f.outcome === "won").length).toBeGreaterThan(1);

    // Trigger values drawn from the chain, so that every webhook has something to match.
    const values = new Map<Kind, string[]>();
    for (const k of KINDS) {
      const seen = new Set<string>();
      for (const b of blocks)
        for (const e of b.events) if (e.type === k.node) seen.add(e[k.node][k.payloadField as string]);
      values.set(k, [...seen].sort());
      expect(seen.size, k.type).toBeGreaterThan(0);
    }
    const hooks: Hook[] = Array.from({ length: WEBHOOKS }, (_, i) => {
      const k = KINDS[i % KINDS.length];
      const list = values.get(k) as string[];
      const value = list[Math.floor(i / KINDS.length) % list.length];
      const tests: [Kind, string | undefined][] = [[k, value]];
      const triggers = [{ type: k.type, [k.field as string]: value }];
      if (i % 100 === 4) {
        tests.push([WILDCARD, undefined]);
        triggers.push({ type: WILDCARD.type });
      }
      return { name: `scale-${i}`, path: `/hook/w${i}`, ordered: i % 10 === 7, triggers, tests };
    });

    // The expectation: canonical committed events each webhook's triggers match, as
    // `<block_hash>:<tx_id>:<event_index>` (event_index: the event's place in its block, ordered by
    // transaction, then the node's event index).
    const canonical = new Set(truth.canonical.map((b) => b.indexBlockHash));
    const expected = new Map<string, Set<string>>(hooks.map((h) => [h.path, new Set<string>()]));
    let expectedTotal = 0;
    for (const b of blocks) {
      if (!canonical.has(b.index_block_hash)) continue;
      const txIndex = new Map<string, number>(b.transactions.map((t: Raw) => [t.txid, t.tx_index]));
      const events = [...b.events].sort(
        (x: Raw, y: Raw) => (txIndex.get(x.txid) ?? 0) - (txIndex.get(y.txid) ?? 0) || x.event_index - y.event_index,
      );
      events.forEach((e: Raw, ordinal: number) => {
        if (!e.committed) return;
        for (const h of hooks) {
          const hit = h.tests.some(
            ([k, v]) => k.node === e.type && (v === undefined || e[k.node][k.payloadField as string] === v),
          );
          if (hit) {
            (expected.get(h.path) as Set<string>).add(`${b.block_hash}:${e.txid}:${ordinal}`);
            expectedTotal++;
          }
        }
      });
    }
    expect(expectedTotal).toBeGreaterThan(3000);

    let svc: ServiceProcess = await startServiceProcess(env, 120_000);
    const current = () => svc;
    cleanups.push(async () => {
      if (current().child.exitCode === null) current().child.kill("SIGKILL");
    });
    const api = () => webhookClient(current().apiUrl);
    // Fifty creations in flight at a time: the service takes them one by one (each holds the tip row).
    for (let i = 0; i < hooks.length; i += 50) {
      await Promise.all(
        hooks.slice(i, i + 50).map(async (h) => {
          const res = await api().create({
            name: h.name,
            url: `${receiver.url.replace(/\/hook$/, "")}${h.path}`,
            triggers: h.triggers,
            // Long enough that no send times out while the loaded test process answers late (a
            // send that times out on every attempt ends dead, never received, yet rolled back).
            timeoutMs: 20_000,
            ...(h.ordered ? { ordered: true } : {}),
          });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
        }),
      );
    }
    // Blocks a little apart, so that applies of a block that a fork later orphans are sent before
    // the fork wins (then rolled back), as on a live chain.
    for (const r of requests) {
      await postObserver(svc.observerUrl, r.path, r.body);
      if (r.path === "/new_block") await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // Three kills while batches are expanded and deliveries sent, each followed by a restart.
    const ok = () => receiver.requests.filter((q) => q.status === 200).length;
    for (const fraction of [0.1, 0.35, 0.65]) {
      await waitFor(() => ok() >= expectedTotal * fraction, { timeoutMs: 300_000, intervalMs: 50 }).catch((err) => {
        process.stderr.write(current().stderr().slice(-20_000));
        throw err;
      });
      svc.child.kill("SIGKILL");
      expect((await svc.exited).signal).toBe("SIGKILL");
      svc = await startServiceProcess(env, 120_000);
    }

    // Done when every webhook's fold equals its expectation (killed in-flight rows come back after their lease).
    // The requests are grouped by webhook once per look, not filtered once per webhook.
    const byPath = () => {
      const groups = new Map<string, Receiver["requests"]>(hooks.map((h) => [h.path, []]));
      for (const q of receiver.requests) groups.get(q.path)?.push(q);
      return (p: string) => ({ requests: groups.get(p) ?? [] }) as unknown as Receiver;
    };
    const settled = () => {
      const perHook = byPath();
      return hooks.every((h) => sameSet(foldChainDeliveries(perHook(h.path)).applied, expected.get(h.path)));
    };
    await waitFor(settled, { timeoutMs: 400_000, intervalMs: 1000 }).catch((err) => {
      // The service's log tells why it stalled.
      process.stderr.write(current().stderr().slice(-20_000));
      throw err;
    });

    // Rows in flight at the last kill were received but not marked done: they are sent again once
    // their lease (timeout + margin) ends. Done when the service reports nothing outstanding.
    await waitFor(
      async () => {
        const res = await fetch(`${current().apiUrl}/status`);
        if (res.status !== 200) return false;
        const { webhooks } = (await res.json()) as {
          webhooks: { outstanding: number; unexpanded_batches: number; held_batches: number };
        };
        return webhooks.outstanding === 0 && webhooks.unexpanded_batches === 0 && webhooks.held_batches === 0;
      },
      { timeoutMs: 300_000, intervalMs: 1000 },
    );

    let rollbacks = 0;
    const perHook = byPath();
    for (const h of hooks) {
      const mine = perHook(h.path).requests.filter((q) => q.status === 200);
      const { applied } = foldChainDeliveries(perHook(h.path));
      expect([...applied].sort(), h.name).toEqual([...(expected.get(h.path) as Set<string>)].sort());
      // Walk the first arrival of each webhook-id in order.
      const firstSeen = new Set<string>();
      const received: { key: string; txEvent: string; height: number }[] = [];
      const idsByKey = new Map<string, Set<string>>();
      let withdrawn = new Set<string>();
      let floor = { height: -1, index: -2 };
      for (const q of mine) {
        const id = String(q.headers["webhook-id"]);
        const { type, data } = JSON.parse(q.body);
        if (firstSeen.has(id)) continue;
        firstSeen.add(id);
        if (type === "chain.reorg.rollback") {
          rollbacks++;
          // It lists only applies this webhook received before it.
          for (const o of data.orphaned as Raw[]) {
            const txEvent = `${o.tx_id}:${o.event.event_index}`;
            expect(
              received.some((r) => r.txEvent === txEvent),
              `${h.name}: rollback lists an apply never received`,
            ).toBe(true);
          }
          withdrawn = new Set([
            ...withdrawn,
            ...(data.orphaned as Raw[]).map((o) => `${o.tx_id}:${o.event.event_index}`),
          ]);
          floor = { height: data.fork_point_height, index: -2 };
          continue;
        }
        const key = `${data.block_hash}:${data.tx_id}:${data.event.event_index}`;
        const txEvent = `${data.tx_id}:${data.event.event_index}`;
        const ids = idsByKey.get(key) ?? new Set<string>();
        // A second id for the same event only after a rollback withdrew it.
        if (ids.size) expect(withdrawn.has(txEvent), `${h.name}: ${key} under two ids`).toBe(true);
        ids.add(id);
        idsByKey.set(key, ids);
        received.push({ key, txEvent, height: data.block_height });
        if (h.ordered) {
          // Block order: each apply after the previous one; after a rollback, from its fork point on.
          const at = { height: data.block_height, index: data.event.event_index };
          const after = at.height > floor.height || (at.height === floor.height && at.index > floor.index);
          expect(after, `${h.name}: ${key} arrived out of order`).toBe(true);
          floor = at;
        }
      }
    }
    expect(rollbacks).toBeGreaterThan(0);

    // Stop cleanly and read the outbox: nothing pending, no batch left.
    svc.child.kill("SIGTERM");
    expect((await svc.exited).code).toBe(0);
    const db = env.DATABASE_URL
      ? await createPostgresDb(env.DATABASE_URL, 1)
      : await createPgliteDb(path.join(env.DATA_DIR, "pgdata"));
    try {
      const pending = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM control.webhook_outbox WHERE status = 'pending'",
      );
      expect(Number(pending.rows[0].n)).toBe(0);
      const batches = await db.query<{ n: string }>("SELECT count(*) AS n FROM control.webhook_batches");
      expect(Number(batches.rows[0].n)).toBe(0);
    } finally {
      await db.close();
    }
  });
});

function sameSet(a: Set<string>, b: Set<string> | undefined): boolean {
  if (!b || a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
