/**
 * GET /api/node on a running service with no instance token (loopback: open, like /metrics), fed
 * a small simulated chain and one malformed body, with STACKS_NODE_RPC_URL pointing at a local
 * HTTP server that answers `/v2/info` like a stacks-node, then never answers, then is closed.
 * Observer figures are checked against the requests the test posted; the node's figures against
 * what the stand-in answered; an unreachable node is reported in a 200 body.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { scrape } from "../../../support/scrape.js";
import { postObserver, startTestService } from "../../../support/service.js";
import { type NodeBlock, blocksOf } from "../../../support/simulator-blocks.js";

/** How the stand-in stacks-node answers `GET /v2/info`. */
type NodeMode = { kind: "answer"; body: Record<string, unknown> } | { kind: "fail"; status: number } | { kind: "hang" };

interface StandInNode {
  url: string;
  mode: NodeMode;
  infoRequests: number;
  close(): Promise<void>;
}

async function startStandInNode(): Promise<StandInNode> {
  const node: StandInNode = {
    url: "",
    mode: { kind: "answer", body: infoBody(0, 0) },
    infoRequests: 0,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    if (req.url !== "/v2/info") {
      res.writeHead(404).end();
      return;
    }
    node.infoRequests++;
    if (node.mode.kind === "hang") return; // never answers: the caller's timeout must end it
    if (node.mode.kind === "fail") {
      res.writeHead(node.mode.status, { "content-type": "text/plain" }).end("node is starting");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(node.mode.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return node;
}

/** A /v2/info answer shaped like stacks-core's (RPCPeerInfoData), with the tips given. */
function infoBody(stacksTipHeight: number, burnBlockHeight: number): Record<string, unknown> {
  return {
    peer_version: 402653196,
    pox_consensus: "a2c5f2c2e4d6a7b8c9d0e1f20304050607080910",
    burn_block_height: burnBlockHeight,
    stable_pox_consensus: "b1c5f2c2e4d6a7b8c9d0e1f20304050607080910",
    stable_burn_block_height: burnBlockHeight - 7,
    server_version: "stacks-node 3.1.0.0.7 (release/3.1.0.0.7:abcdef0, release build, linux [x86_64])",
    network_id: 2147483648,
    parent_network_id: 3669344250,
    stacks_tip_height: stacksTipHeight,
    stacks_tip: "5b2ed7d4f0a5e0c8d1c2b3a4958677665544332211ffeeddccbbaa9988776655",
    stacks_tip_consensus_hash: "c4f1e7a2b3d4e5f60718293a4b5c6d7e8f901234",
    genesis_chainstate_hash: "74237aa39aa50a83de11a4f53e9d3bb7d43461d1de9873f402e5453ae60bc59b",
    unanchored_tip: null,
    unanchored_seq: null,
    exit_at_block_height: null,
    is_fully_synced: true,
    node_public_key: "029f8c9e6ba23a7e2b7c6f1e0d4a5b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b",
    node_public_key_hash: "7c7e1e0a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e",
  };
}

let t: TestDb;
let svc: Service;
let node: StandInNode;
let blocks: NodeBlock[];
const posted: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestDb();
  node = await startStandInNode();
  svc = await startTestService(t.db, { STACKS_NODE_RPC_URL: node.url });
  const post = async (path: string, body: string) => {
    await postObserver(svc.observerUrl, path, body);
    posted[path] = (posted[path] ?? 0) + 1;
  };
  await post("/new_block", "this is not JSON");
  const { payloads } = simulateChain({ seed: "operator-node", blocks: 6, eventsPerBlock: 4 });
  for (const p of payloads) await post(p.path, JSON.stringify(p.body));
  blocks = blocksOf(payloads);
  await svc.idle();
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await node?.close();
  await t?.drop();
});

/** The parts of the /api/node body the tests read (README "GET /api/node"). */
interface NodeReport {
  observer: { paths: Record<string, { requests: number; last_request_at: string; malformed: number }> };
  last_block: { height: number; index_block_hash: string; burn_block_height: number } | null;
  malformed_payloads: number;
  sluice: { tip_height: number | null };
  node: {
    configured: boolean;
    reachable?: boolean;
    info?: Record<string, unknown>;
    gap?: number | null;
    error?: string;
  };
}

const getNode = async () => {
  const res = await fetch(`${svc.apiUrl}/api/node`);
  return { status: res.status, body: (await res.json()) as NodeReport };
};

describe("no instance token: loopback is open", () => {
  it("/metrics and /api/node answer 200 without a token (and a stray token changes nothing)", async () => {
    for (const path of ["/metrics", "/api/node"]) {
      for (const headers of [{}, { authorization: "Bearer tok_anything" }] as Record<string, string>[]) {
        const res = await fetch(`${svc.apiUrl}${path}`, { headers });
        expect(res.status, path).toBe(200);
        await res.arrayBuffer();
      }
    }
    expect((await scrape(svc.apiUrl)).value("sluice_ingest_malformed_payloads_total")).toBe(1);
  });
});

describe("GET /api/node", () => {
  it("reports observer requests per path, the last block, and malformed payloads", async () => {
    const { status, body } = await getNode();
    expect(status).toBe(200);
    const paths = body.observer.paths;
    expect(Object.fromEntries(Object.entries(paths).map(([p, a]) => [p, a.requests]))).toEqual(posted);
    for (const a of Object.values(paths)) expect(Number.isNaN(Date.parse(a.last_request_at))).toBe(false);
    expect(paths["/new_block"].malformed).toBe(1);
    expect(body.malformed_payloads).toBe(1);
    const last = blocks[blocks.length - 1];
    expect(body.last_block).toMatchObject({
      height: last.block_height,
      index_block_hash: last.index_block_hash,
      burn_block_height: last.burn_block_height,
    });
    expect(body.sluice.tip_height).toBe(Math.max(...blocks.map((b) => b.block_height)));
  });

  it("with the node answering /v2/info: its info and gap = node tip height − sluice tip height", async () => {
    const tip = Math.max(...blocks.map((b) => b.block_height));
    node.mode = { kind: "answer", body: infoBody(tip + 5, 900) };
    const { status, body } = await getNode();
    expect(status).toBe(200);
    expect(body.node).toMatchObject({ configured: true, reachable: true, gap: 5 });
    expect(body.node.info).toMatchObject({ stacks_tip_height: tip + 5, burn_block_height: 900 });
    expect(body.node.info?.server_version).toMatch(/^stacks-node/);
    const m = await scrape(svc.apiUrl);
    expect(m.value("sluice_node_reachable")).toBe(1);
    expect(m.value("sluice_node_tip_height")).toBe(tip + 5);
    expect(m.value("sluice_node_gap_blocks")).toBe(5);
  });

  it("a node answering an error status, or JSON without its tip, is reported unreachable with the reason", async () => {
    node.mode = { kind: "fail", status: 503 };
    let { status, body } = await getNode();
    expect(status).toBe(200);
    expect(body.node).toMatchObject({ configured: true, reachable: false });
    expect(body.node.error).toMatch(/answered HTTP 503$/);
    node.mode = { kind: "answer", body: { peer_version: 1 } };
    ({ status, body } = await getNode());
    expect(status).toBe(200);
    expect(body.node.error).toMatch(/without stacks_tip_height/);
  });

  it("a node that never answers is reported unreachable after the timeout, with a 200", async () => {
    node.mode = { kind: "hang" };
    const before = node.infoRequests;
    const { status, body } = await getNode();
    expect(status).toBe(200);
    expect(node.infoRequests).toBe(before + 1);
    expect(body.node).toMatchObject({ configured: true, reachable: false });
    expect(body.node.error).toMatch(/did not answer within \d+ ms/);
    expect(body.node.gap).toBeUndefined();
    expect(body.last_block).not.toBeNull();
  });

  it("a closed port is reported unreachable with the connection error, with a 200", async () => {
    await node.close();
    const { status, body } = await getNode();
    expect(status).toBe(200);
    expect(body.node).toMatchObject({ configured: true, reachable: false });
    expect(body.node.error).toMatch(/unreachable: ECONNREFUSED/);
    const m = await scrape(svc.apiUrl);
    expect(m.value("sluice_node_reachable")).toBe(0);
    expect(m.value("sluice_node_gap_blocks")).toBeNaN();
    expect(m.value("sluice_node_tip_height")).toBeNaN();
  });
});
