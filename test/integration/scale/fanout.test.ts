/**
 * SSE fan-out and reads across processes (README "Running several processes"), on PostgreSQL with
 * real service processes: one `ROLE=ingest` process is fed a simulated devnet chain with forks
 * while three `ROLE=api` processes serve streams and pages from the same database.
 *
 * - Event streams spread over the API processes, and one on the ingest process itself, receive
 *   exactly the frames (ids, order, reorg frames) a client of one process receives, computed here
 *   from the posted chain alone: the chain is posted one request at a time and the next request
 *   waits until the previous one is applied and every client holds its frames, which makes the
 *   frame sequence a function of the chain (runtime/api/events/stream-session.ts "Client contract").
 * - sBTC transfer row streams end each step with the transfers the chain so far makes
 *   (test/support/subgraph-expect.ts), and every process sends the same frames.
 * - Right after the leader commits a reorg, a page the API processes had cached shows the new
 *   branch, never the orphaned one.
 * - The listening connections are terminated in the middle (pg_terminate_backend): each process
 *   listens again, no frame is lost, and frames keep arriving at notification speed, not at the
 *   5 s safety-net poll.
 * - The API processes answer the same reads with the same bodies and ETags.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_CONTRACTS } from "../../../runtime/config/networks.js";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import type { Db } from "../../../runtime/db/types.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { type RawRequest, expectedChain } from "../../support/chain-model.js";
import { type ServiceProcess, startServiceProcess } from "../../support/cli.js";
import { TEST_DB_KIND, createPgDatabase } from "../../support/db.js";
import { type ModelEvent, type SseClient, modelChain, openSse, pick } from "../../support/read-api-model.js";
import { canonicalBlocks, expectedTransfers } from "../../support/subgraph-expect.js";
import { applyRowFrames } from "../../support/subgraph-read.js";
import { postObserver, waitFor } from "../../support/service.js";

const LISTENER = "sluice listener"; // runtime/db/pg-listener.ts names its connection so
const { sbtcAssetIdentifier, sbtcTokenContractId } = NETWORK_CONTRACTS.devnet;

/**
 * The frames one event stream (no filter, from height 0) receives when every request is applied
 * and delivered before the next one arrives, written from the stream's client contract: new
 * canonical events in cursor order; when a reorg orphans heights the client has events at, a reorg
 * frame whose id is the cursor of the last event below the fork point, then the new branch.
 */
function eventFrameModel() {
  let view: ModelEvent[] = [];
  let forks = 0;
  const frames: string[] = [];
  return {
    frames,
    advance(prefix: RawRequest[]) {
      const chain = expectedChain(prefix);
      for (const fork of chain.reorgForkPoints.slice(forks)) {
        const last = view[view.length - 1];
        if (last && last.block_height >= fork) {
          view = view.filter((e) => e.block_height < fork);
          frames.push(`reorg|${view[view.length - 1]?.cursor ?? ""}|${fork}`);
        }
      }
      forks = chain.reorgForkPoints.length;
      const events = modelChain(prefix).events;
      view.forEach((e, i) => {
        if (events[i]?.cursor !== e.cursor || events[i]?.index_block_hash !== e.index_block_hash)
          throw new Error(`model: event ${e.cursor} is not canonical and no reorg frame covers it`);
      });
      for (const e of events.slice(view.length)) {
        frames.push(`message|${e.cursor}`);
        view.push(e);
      }
    },
  };
}

/** An event stream's frames in the model's notation. */
const eventFrames = (c: SseClient) =>
  c.items.flatMap((i) =>
    i.kind !== "event"
      ? []
      : i.event === "reorg"
        ? [`reorg|${i.id ?? ""}|${JSON.parse(i.data).fork_point_height}`]
        : [`message|${i.id}`],
  );

/** Every frame with its data (what must be the same on every process). */
const rawFrames = (c: SseClient) =>
  c.items.flatMap((i) => (i.kind === "event" ? [`${i.event ?? "message"}|${i.id ?? ""}|${i.data}`] : []));

/** The sBTC transfer rows a row stream holds, as expectedTransfers writes them. */
const heldTransfers = (c: SseClient) =>
  [...applyRowFrames(c.items).values()]
    .map((r) => [r.sender, r.recipient, String(r.amount), String(r.event_index), r.memo ?? null] as (string | null)[])
    .sort();

describe.skipIf(TEST_DB_KIND !== "postgres")("SSE fan-out and reads across processes", () => {
  let root = ""; // made in beforeAll: a skipped describe still runs its body
  const children: ServiceProcess[] = [];
  const clients: SseClient[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  let truth: ReturnType<typeof simulateChain>["truth"];
  let requests: RawRequest[] = [];
  const model = eventFrameModel();
  let db: Db;
  let ingest: ServiceProcess;
  let apis: ServiceProcess[] = [];
  const eventStreams: SseClient[] = [];
  const rowStreams: SseClient[] = [];
  let posted = 0;
  /** Per request posted: ms from the ingest's tip showing the block to every frame delivered. */
  const deliveryMs: number[] = [];

  beforeAll(async () => {
    const simulated = simulateChain({
      seed: "fanout-1",
      blocks: 60,
      eventsPerBlock: 8,
      forkRate: 0.2,
      hotShare: 0.8,
      network: "devnet",
    });
    truth = simulated.truth;
    requests = simulated.payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-fanout-"));
    const target = await createPgDatabase();
    cleanups.push(target.drop);
    db = await createPostgresDb(target.url, 2);
    const start = async (name: string, role: string) => {
      const svc = await startServiceProcess(
        { DATABASE_URL: target.url, ROLE: role, NETWORK: "devnet", DATA_DIR: path.join(root, name) },
        120_000,
      );
      children.push(svc);
      return svc;
    };
    ingest = await start("ingest", "ingest");
    apis = await Promise.all([start("api-1", "api"), start("api-2", "api"), start("api-3", "api")]);
    const open = async (url: string) => {
      const c = await openSse(url);
      clients.push(c);
      expect(c.status).toBe(200);
      return c;
    };
    // Two event streams per API process, one on the ingest process; a row stream on each.
    for (const svc of [ingest, ...apis, ...apis])
      eventStreams.push(await open(`${svc.apiUrl}/v1/streams/events/stream?from_height=0`));
    for (const svc of [ingest, ...apis])
      rowStreams.push(await open(`${svc.apiUrl}/v1/subgraphs/sbtc-flows/transfers/stream?since=0`));
  }, 300_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    for (const c of children) c.child.kill("SIGKILL");
    await Promise.all(children.map((c) => c.exited));
    await db?.close();
    for (const c of cleanups) await c();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  /** The ingest process's tip hash once every request posted so far is applied, else undefined. */
  const appliedTip = async (): Promise<string | null | undefined> => {
    const status = (await (await fetch(`${ingest.apiUrl}/status`)).json()) as {
      tip: { index_block_hash: string | null };
      counts: { journal_pending: number };
    };
    return status.counts.journal_pending === 0 ? status.tip.index_block_hash : undefined;
  };

  const page = async (svc: ServiceProcess, query: string) =>
    (await (await fetch(`${svc.apiUrl}/v1/index/events?${query}`)).json()) as {
      events: Record<string, unknown>[];
      tip: { block_height: number };
    };

  /**
   * Posts the next `count` requests one at a time. After each: when it reorgs, the API processes'
   * cached page of the reorged heights must show the new branch as soon as the leader committed;
   * then every client must hold the frames the chain so far makes.
   */
  async function postPaced(count: number): Promise<void> {
    for (const r of requests.slice(posted, posted + count)) {
      const before = expectedChain(requests.slice(0, posted));
      posted++;
      const prefix = requests.slice(0, posted);
      const after = expectedChain(prefix);
      const fork = after.reorgForkPoints.length > before.reorgForkPoints.length ? after.reorgForkPoints.at(-1) : null;
      const query = fork == null ? "" : `from_height=${fork}&limit=200`;
      if (fork != null) for (const svc of apis) await page(svc, query); // cached under the old tip
      await postObserver(ingest.observerUrl, r.path, r.body);
      // Applied before anything else is posted: a block committing while the processes still
      // read the previous one could make a stream's frames depend on timing (at-least-once).
      await waitFor(async () => (await appliedTip()) === after.tipHash, { timeoutMs: 30_000, intervalMs: 10 });
      const appliedAt = Date.now();
      if (fork != null) {
        const want = modelChain(prefix).events.filter((e) => e.block_height >= (fork as number));
        for (const svc of apis) {
          const got = await page(svc, query);
          expect(got.tip.block_height, "the page's tip is the new one").toBe(after.tipHeight);
          expect(got.events.map(pick), "a cached page after a reorg shows the new branch").toEqual(want);
        }
      }
      model.advance(prefix);
      const transfers = expectedTransfers(canonicalBlocks(prefix), sbtcAssetIdentifier, sbtcTokenContractId).sort();
      const want = JSON.stringify(model.frames);
      const wantRows = JSON.stringify(transfers);
      const settled = () =>
        eventStreams.every((c) => JSON.stringify(eventFrames(c)) === want) &&
        rowStreams.every((c) => JSON.stringify(heldTransfers(c)) === wantRows);
      try {
        await waitFor(settled, { timeoutMs: 30_000, intervalMs: 5 });
      } catch {
        for (const c of eventStreams) expect(eventFrames(c)).toEqual(model.frames);
        for (const c of rowStreams) expect(heldTransfers(c)).toEqual(transfers);
      }
      deliveryMs.push(Date.now() - appliedAt);
    }
  }

  it("streams on every API process receive the ingest process's frames, as the chain makes them", async () => {
    expect(
      truth.forks.some((f) => f.outcome === "won"),
      "the simulation reorgs",
    ).toBe(true);
    await postPaced(Math.floor(requests.length / 2));
    const reference = rawFrames(eventStreams[0]);
    expect(
      reference.some((f) => f.startsWith("reorg|")),
      "a stream got a reorg frame by now",
    ).toBe(true);
    for (const c of eventStreams) expect(rawFrames(c)).toEqual(reference);
    const rows = rawFrames(rowStreams[0]);
    expect(rows.length).toBeGreaterThan(0);
    for (const c of rowStreams) expect(rawFrames(c)).toEqual(rows);
  }, 300_000);

  it("a terminated LISTEN connection is made again and no frame is lost", async () => {
    const listeners = async () =>
      (
        await db.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
          [LISTENER],
        )
      ).rows.map((r) => r.pid);
    const old = await listeners();
    expect(old.length, "one listening connection per process").toBe(4);
    const cut = await db.query<{ ok: boolean }>("SELECT pg_terminate_backend(pid) AS ok FROM unnest($1::int[]) pid", [
      old,
    ]);
    expect(cut.rows.every((r) => r.ok)).toBe(true);
    // Straight away: these blocks commit while the processes are not listening.
    const fromIndex = deliveryMs.length;
    await postPaced(3);
    await waitFor(
      async () => {
        const now = await listeners();
        return now.length === 4 && now.every((pid) => !old.includes(pid));
      },
      { timeoutMs: 15_000 },
    );
    await postPaced(requests.length - posted);
    for (const c of eventStreams) expect(rawFrames(c)).toEqual(rawFrames(eventStreams[0]));
    for (const c of rowStreams) expect(rawFrames(c)).toEqual(rawFrames(rowStreams[0]));
    // Listening again, frames follow the notifications: the 5 s poll would make the median ~2.5 s.
    const later = deliveryMs.slice(fromIndex + 3).sort((a, b) => a - b);
    const median = later[Math.floor(later.length / 2)];
    console.log(`after the listeners were terminated: median delivery ${median} ms over ${later.length} requests`);
    expect(median).toBeLessThan(1_500);
  }, 300_000);

  it("the API processes answer the same reads with the same bodies and ETags", async () => {
    const tipHeight = expectedChain(requests).tipHeight as number;
    const urls = [
      "/v1/index/events?limit=50",
      `/v1/index/events?from_height=${tipHeight - 5}`,
      "/v1/streams/events?types=ft_transfer&limit=20",
      "/v1/subgraphs/sbtc-flows/transfers?_limit=20",
      "/v1/subgraphs/asset-holdings/holdings?_limit=20",
      "/v1/subgraphs/sbtc-flows/transfers/count",
    ];
    for (const url of urls) {
      const answers = await Promise.all(
        apis.map(async (svc) => {
          const res = await fetch(svc.apiUrl + url);
          return { status: res.status, etag: res.headers.get("etag"), body: await res.text() };
        }),
      );
      expect(answers[0].status, url).toBe(200);
      for (const a of answers.slice(1)) expect(a, url).toEqual(answers[0]);
    }
    const all = await page(apis[1], "limit=200");
    expect(all.events.map(pick)).toEqual(modelChain(requests).events.slice(0, 200));
  }, 120_000);
});
