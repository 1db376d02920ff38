/**
 * Read replicas (README "Read replicas"; runtime/scale/read-replicas.ts) on a real PostgreSQL
 * streaming replica made by the test (test/support/pg-replica.ts). Three in-process services share
 * the primary: A (ROLE=all, ingests) reads through the replica and an unreachable second one,
 * with a generous maximum lag so that the consistency rule, not the lag, decides; B (ROLE=api)
 * reads through the replica with a maximum lag of 400 ms; R (ROLE=api) has no replica and is the
 * reference every answer is compared with. A simulated chain with forks is posted in phases:
 * 1. caught up: A's answers come from the replica and equal R's, ETags included;
 * 2. replay paused while the chain grows (no reorg): A may serve the replica's older, still
 *    canonical page, but never caches it under the primary's newer stamp: once the replica has
 *    caught up A answers exactly what R does;
 * 3. replay paused across a reorg: the replica's tip is rolled back on the primary, so A rejects
 *    every replica answer and reads the primary (answers equal R's, none 5xx); B skips the
 *    replica as lagging (visible in /status with its lag); the unreachable one is reported;
 * 4. resumed and caught up at the end: A and B answer from the replica, equal to R;
 * 5. the replica stopped (immediate shutdown): A's reads on it fail and run on the primary, never
 *    a 5xx, and /status reports it unreachable.
 * A's third "replica" is the primary itself: not in recovery, so never used.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import type { Db } from "../../../runtime/db/types.js";
import type { Service } from "../../../runtime/service.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { TEST_DB_KIND } from "../../support/db.js";
import { type ReplicaCluster, freePort, startReplicaCluster } from "../../support/pg-replica.js";
import { postObserver, startTestService, waitFor } from "../../support/service.js";
import { newDatabaseName, newRunId } from "../../support/test-databases.mjs";

interface ReplicaStatus {
  replica: string;
  address: string;
  state: string;
  used: boolean;
  lag_bytes: number | null;
  lag_seconds: number | null;
  replay_paused: boolean | null;
  error: string | null;
  reads: { served: number; not_canonical: number; failed: number };
}

interface Answer {
  status: number;
  body: string;
  etag: string | null;
}

async function get(svc: Service, path: string): Promise<Answer> {
  const res = await fetch(svc.apiUrl + path);
  return { status: res.status, body: await res.text(), etag: res.headers.get("etag") };
}

async function replicas(svc: Service): Promise<ReplicaStatus[]> {
  const body = (await (await fetch(`${svc.apiUrl}/status`)).json()) as { read_replicas: { replicas: ReplicaStatus[] } };
  return body.read_replicas.replicas;
}

const reads = async (svc: Service) => (await replicas(svc))[0].reads;

describe.skipIf(TEST_DB_KIND !== "postgres")("read replicas on a streaming replica", () => {
  const { payloads, truth } = simulateChain({ seed: "replicas-1", blocks: 40, eventsPerBlock: 6, forkRate: 0.2 });
  const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
  let cluster: ReplicaCluster | null = null;
  let skipReason = "";
  const dbs: Db[] = [];
  const services: Service[] = [];
  let A: Service;
  let B: Service;
  let R: Service;
  let replicaDb: Db;
  let primaryDb: Db;
  let posted = 0;

  beforeAll(async () => {
    const started = Date.now();
    const made = await startReplicaCluster();
    if (typeof made === "string") {
      skipReason = made;
      console.log(`read-replica test skipped: ${made}`);
      return;
    }
    cluster = made;
    const name = newDatabaseName(process.env.SLUICE_TEST_RUN_ID ?? newRunId());
    await cluster.createDatabase(name);
    console.log(
      `replica of ${cluster.primaryNote}: pg_basebackup ${cluster.basebackupSeconds.toFixed(1)} s, ` +
        `ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    const primaryUrl = cluster.primaryUrl(name);
    const replicaUrl = cluster.replicaUrl(name);
    const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/${name}`;
    const open = async (url: string) => {
      const db = await createPostgresDb(url, 4);
      dbs.push(db);
      return db;
    };
    primaryDb = await open(primaryUrl);
    replicaDb = await open(replicaUrl);
    const common = { NETWORK: "devnet", DATABASE_URL: primaryUrl };
    A = await startTestService(await open(primaryUrl), {
      ...common,
      DATABASE_READ_URL: `${replicaUrl},${unreachable},${primaryUrl}`,
      READ_REPLICA_MAX_LAG_MS: "60000",
    });
    services.push(A);
    B = await startTestService(await open(primaryUrl), {
      ...common,
      ROLE: "api",
      DATABASE_READ_URL: replicaUrl,
      READ_REPLICA_MAX_LAG_MS: "400",
    });
    services.push(B);
    R = await startTestService(await open(primaryUrl), { ...common, ROLE: "api" });
    services.push(R);
  }, 300_000);

  afterAll(async () => {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    for (const db of dbs) await db.close().catch(() => {});
    await cluster?.close();
  }, 120_000);

  /** Posts requests [posted, to) to A's observer and waits until the chain and subgraphs took them in. */
  async function postUntil(to: number): Promise<void> {
    for (; posted < to; posted++) await postObserver(A.observerUrl, requests[posted].path, requests[posted].body);
    await A.idle();
    await A.subgraphs.idle();
  }

  const tipOf = async (db: Db) =>
    (
      await db.query<{ h: string | null; height: number | null }>(
        "SELECT index_block_hash AS h, block_height AS height FROM control.chain_tip",
      )
    ).rows[0];

  const canonicalOnPrimary = async (hash: string) =>
    (
      await primaryDb.query<{ canonical: boolean }>("SELECT canonical FROM chain.blocks WHERE index_block_hash = $1", [
        hash,
      ])
    ).rows[0]?.canonical === true;

  /**
   * Read URLs of every kind the replicas serve, from what R shows. `variant` changes the page size so
   * each phase asks pages no earlier phase cached.
   */
  async function readUrls(variant: number): Promise<string[]> {
    const urls = [
      `/v1/index/events?limit=${1000 - variant}`,
      `/v1/index/events?limit=${20 + variant}&from_height=3`,
      `/v1/streams/events?limit=${500 - variant}&types=stx_transfer,ft_transfer`,
      `/v1/streams/events?limit=${30 + variant}`,
    ];
    const events = JSON.parse((await get(R, "/v1/index/events?limit=5")).body) as { events: { tx_id: string }[] };
    urls.push(`/v1/index/transactions/${events.events[events.events.length - 1].tx_id}/proof`);
    const list = JSON.parse((await get(R, "/v1/subgraphs")).body) as {
      subgraphs: { name: string; tables: Record<string, unknown> }[];
    };
    urls.push("/v1/subgraphs");
    for (const sg of list.subgraphs) {
      urls.push(`/v1/subgraphs/${sg.name}`);
      for (const table of Object.keys(sg.tables)) {
        const base = `/v1/subgraphs/${sg.name}/${table}`;
        urls.push(`${base}?_limit=${50 - variant}`, `${base}/count`, `${base}/aggregate`);
        const rows = JSON.parse((await get(R, `${base}?_limit=1`)).body) as { rows: { _id: number }[] };
        if (rows.rows.length) urls.push(`${base}/${rows.rows[0]._id}`);
      }
    }
    return urls;
  }

  /** Every URL answers on `svc` exactly as on R (status, body, ETag); none is a 5xx. */
  async function expectSameAsReference(svc: Service, urls: string[]): Promise<void> {
    for (const url of urls) {
      const [got, want] = [await get(svc, url), await get(R, url)];
      expect(got.status, url).toBeLessThan(500);
      expect(got, url).toEqual(want);
    }
  }

  async function waitState(svc: Service, state: string): Promise<ReplicaStatus> {
    let last: ReplicaStatus[] = [];
    return waitFor(
      async () => {
        last = await replicas(svc);
        return last[0].state === state ? last[0] : null;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}: waiting for ${state}, last ${JSON.stringify(last)}`);
    });
  }

  it("serves reads from the replica under the consistency rule, skips it when it lags or is gone", async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    // The first fork the chain takes: its first block, and a few blocks before it that only extend.
    const won = truth.forks.find((f) => f.outcome === "won" && f.depth >= 1);
    expect(won, "the simulated chain reorgs").toBeDefined();
    const forkStart = payloads.findIndex((p) => p.path === "/new_block" && p.body.index_block_hash === won?.branch[0]);
    const pauseAt = forkStart - 5;

    // 1. Caught up: answers from the replica equal the reference.
    await postUntil(pauseAt);
    await cluster.waitCaughtUp();
    await waitState(A, "healthy");
    let urls = await readUrls(1);
    let before = await reads(A);
    await expectSameAsReference(A, urls);
    let after = await reads(A);
    expect(after.served - before.served, "every read was served by the replica").toBe(urls.length);
    expect(after.not_canonical - before.not_canonical).toBe(0);
    expect(after.failed - before.failed).toBe(0);

    // 2. Replay paused, the chain grows without a reorg: the replica's page is older but canonical.
    await cluster.pauseReplay();
    const staleTip = await tipOf(replicaDb);
    await postUntil(forkStart);
    const primaryTip = await tipOf(primaryDb);
    expect(primaryTip.h, "the chain grew on the primary").not.toBe(staleTip.h);
    expect(await tipOf(replicaDb), "the replica holds still").toEqual(staleTip);
    expect(await canonicalOnPrimary(String(staleTip.h)), "no reorg yet: the replica's tip is canonical").toBe(true);
    const eventsUrl = "/v1/index/events?limit=1000";
    const rowsUrl = urls.find((u) => u.startsWith("/v1/subgraphs/") && u.includes("?_limit="));
    expect(rowsUrl).toBeDefined();
    before = await reads(A);
    const staleEvents = await get(A, eventsUrl);
    const staleRows = await get(A, String(rowsUrl));
    after = await reads(A);
    expect(after.served - before.served, "the older, canonical answers were served").toBe(2);
    expect(JSON.parse(staleEvents.body).tip.block_height).toBe(staleTip.height);
    expect(JSON.parse(staleRows.body).tip.block_height).toBe(staleTip.height);
    const freshEvents = await get(R, eventsUrl);
    expect(JSON.parse(freshEvents.body).tip.block_height).toBe(primaryTip.height);
    expect(staleEvents.etag, "an older page has its own ETag").not.toBe(freshEvents.etag);
    await cluster.resumeReplay();
    await cluster.waitCaughtUp();
    // Nothing older was kept under the primary's stamp: the same URLs now answer what R does.
    expect(await get(A, eventsUrl)).toEqual(await get(R, eventsUrl));
    expect(await get(A, String(rowsUrl))).toEqual(await get(R, String(rowsUrl)));

    // 3. Replay paused across a reorg: the replica's tip is rolled back on the primary.
    await cluster.pauseReplay();
    const pausedTip = await tipOf(replicaDb);
    const reorgsBefore = Number(
      (await primaryDb.query<{ n: string }>("SELECT reorg_count AS n FROM control.chain_tip")).rows[0].n,
    );
    for (;;) {
      expect(posted, "the fork wins before the chain ends").toBeLessThan(requests.length);
      await postUntil(posted + 1);
      const { n } = (await primaryDb.query<{ n: string }>("SELECT reorg_count AS n FROM control.chain_tip")).rows[0];
      if (Number(n) > reorgsBefore) break;
    }
    expect(await tipOf(replicaDb), "the paused replica still shows its tip").toEqual(pausedTip);
    expect(await canonicalOnPrimary(String(pausedTip.h)), "the primary rolled that tip back").toBe(false);
    urls = await readUrls(3);
    before = await reads(A);
    await expectSameAsReference(A, urls);
    after = await reads(A);
    expect(after.served - before.served, "no answer resting on the rolled-back tip was served").toBe(0);
    expect(after.not_canonical - before.not_canonical).toBeGreaterThan(0);
    expect(after.not_canonical - before.not_canonical + after.failed - before.failed).toBe(urls.length);
    // B: the paused replica is skipped as lagging, with its lag in /status; its reads go to the primary.
    const lagging = await waitState(B, "lagging");
    expect(lagging.used).toBe(false);
    expect(lagging.replay_paused).toBe(true);
    expect(lagging.lag_bytes).toBeGreaterThan(0);
    expect(lagging.lag_seconds === null || lagging.lag_seconds > 0.4).toBe(true);
    const bBefore = await reads(B);
    await expectSameAsReference(B, urls);
    expect(await reads(B), "B never tried the lagging replica").toEqual(bBefore);
    // A: the unreachable replica is reported, never used; the paused one's lag is visible.
    // A probes its replicas on its own schedule: wait for a probe taken since the pause.
    await waitFor(
      async () => {
        const [first] = await replicas(A);
        return (first.lag_bytes ?? 0) > 0 && first.replay_paused === true;
      },
      { timeoutMs: 10_000 },
    );
    const [paused, gone] = await replicas(A);
    expect(paused).toMatchObject({ replica: "0", replay_paused: true });
    expect(paused.lag_bytes).toBeGreaterThan(0);
    expect(gone).toMatchObject({ replica: "1", state: "unreachable", used: false });
    expect(gone.error).toMatch(/ECONNREFUSED|connect/);
    expect(gone.address).toMatch(/^127\.0\.0\.1:\d+\/sluice_test_/);
    const notReplica = (await replicas(A))[2];
    expect(notReplica).toMatchObject({ replica: "2", state: "not_a_replica", used: false });
    expect(notReplica.reads).toEqual({ served: 0, not_canonical: 0, failed: 0 });
    const metrics = await (await fetch(`${A.apiUrl}/metrics`)).text();
    expect(metrics).toMatch(/^sluice_read_replica_lag_seconds\{replica="0"\} [0-9.e+-]+$/m);
    expect(metrics).toMatch(/^sluice_read_replica_lag_bytes\{replica="0"\} [1-9][0-9]*$/m);
    expect(metrics).toMatch(/^sluice_read_replica_used\{replica="1"\} 0$/m);
    expect(metrics).toMatch(/^sluice_read_replica_reads_total\{replica="0",result="not_canonical"\} [1-9][0-9]*$/m);

    // 4. Resumed, the rest of the chain posted, caught up: A and B read from the replica again.
    await cluster.resumeReplay();
    await postUntil(requests.length);
    await cluster.waitCaughtUp();
    await waitState(A, "healthy");
    await waitState(B, "healthy");
    expect((await tipOf(replicaDb)).h).toBe(truth.tip.indexBlockHash);
    urls = await readUrls(4);
    before = await reads(A);
    await expectSameAsReference(A, urls);
    after = await reads(A);
    expect(after.served - before.served).toBe(urls.length);
    urls = await readUrls(5);
    await expectSameAsReference(B, urls);

    // 5. The replica goes down: reads in flight on it fail over to the primary, then it is skipped.
    await cluster.stopReplica();
    urls = await readUrls(6);
    before = await reads(A);
    await expectSameAsReference(A, urls);
    after = await reads(A);
    expect(after.served - before.served).toBe(0);
    const down = await waitState(A, "unreachable");
    expect(down.used).toBe(false);
    expect(down.error).not.toBeNull();
    await expectSameAsReference(A, await readUrls(7));
    expect(await reads(A), "an unreachable replica is not tried").toEqual(after);
  });
});
