/**
 * Every 400 rule of the Index, Streams, print-schema, proof and signing-key routes (SPEC.md
 * "Errors", "Limits"; DESIGN.md §4 error body), over real HTTP, plus a seeded fuzz of query
 * strings that must never produce a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../../../runtime/chain/types.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { Service } from "../../../../runtime/service.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { postObserver, startTestService } from "../../../support/service.js";

let testDb: TestDb;
let service: Service;
let base: string;
let contractId: string;
let txId: string;

beforeAll(async () => {
  testDb = await createTestDb();
  service = await startTestService(testDb.db);
  base = service.apiUrl;
  const { payloads } = simulateChain({ seed: "read-api-errors", blocks: 20, eventsPerBlock: 15 });
  for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
  await service.idle();
  const page = (await (await fetch(`${base}/v1/streams/events?types=print&limit=1`)).json()) as {
    events: { contract_id: string; tx_id: string }[];
  };
  contractId = page.events[0].contract_id;
  txId = page.events[0].tx_id;
});

afterAll(async () => {
  await service?.stop();
  await testDb?.drop();
});

async function expectError(path: string, status: number, code: string, init?: RequestInit) {
  const res = await fetch(`${base}${path}`, init);
  const body = (await res.json()) as { error: string; code: string; details?: Record<string, unknown> };
  expect({ path, status: res.status, code: body.code }).toEqual({ path, status, code });
  expect(typeof body.error).toBe("string");
  return body;
}

describe("GET /v1/index/events: 400 rules", () => {
  for (const limit of ["0", "-1", "1.5", "1001", "abc", "", "1e3", " 5"]) {
    it(`limit=${JSON.stringify(limit)} is 400 INVALID_PARAMETER (never clamped)`, async () => {
      await expectError(`/v1/index/events?limit=${encodeURIComponent(limit)}`, 400, "INVALID_PARAMETER");
    });
  }
  it("limit 1 and 1000 are accepted", async () => {
    expect((await fetch(`${base}/v1/index/events?limit=1`)).status).toBe(200);
    expect((await fetch(`${base}/v1/index/events?limit=1000`)).status).toBe(200);
  });
  it("a repeated limit is 400", async () => {
    await expectError("/v1/index/events?limit=1&limit=2", 400, "INVALID_PARAMETER");
  });
  it("cursor and from_cursor together are 400", async () => {
    await expectError("/v1/index/events?cursor=1:0&from_cursor=1:0", 400, "INVALID_PARAMETER");
  });
  for (const cursor of ["bad", "1", "1:2:3", "-1:0", "1:-1", "99999999999:0", "1:2147483648", "0x1:2", " 1:2"]) {
    it(`cursor=${JSON.stringify(cursor)} is 400 INVALID_CURSOR`, async () => {
      await expectError(`/v1/index/events?cursor=${encodeURIComponent(cursor)}`, 400, "INVALID_CURSOR");
      await expectError(`/v1/index/events?from_cursor=${encodeURIComponent(cursor)}`, 400, "INVALID_CURSOR");
    });
  }
  for (const q of [
    "from_height=-1",
    "from_height=x",
    "to_height=1.5",
    "to_height=2147483648",
    "from_height=5&to_height=4",
  ]) {
    it(`${q} is 400 INVALID_PARAMETER`, async () => {
      await expectError(`/v1/index/events?${q}`, 400, "INVALID_PARAMETER");
    });
  }
  it("an unknown parameter is 400 UNKNOWN_PARAMETER naming the closest valid one", async () => {
    const body = await expectError("/v1/index/events?limt=5", 400, "UNKNOWN_PARAMETER");
    expect(body.details).toMatchObject({ parameter: "limt", suggestion: "limit" });
    expect((await expectError("/v1/index/events?_limit=5", 400, "UNKNOWN_PARAMETER")).details?.suggestion).toBe(
      "limit",
    );
    await expectError("/v1/index/events?types=print", 400, "UNKNOWN_PARAMETER");
  });
  it("a parameter another event route takes is refused naming that route (SPEC.md route tables)", async () => {
    const cases: [string, string[]][] = [
      ["/v1/index/events?types=print", ["GET /v1/streams/events", "GET /v1/streams/events/stream"]],
      ["/v1/index/events?sender=SP1", ["GET /v1/streams/events", "GET /v1/streams/events/stream"]],
      ["/v1/streams/events?from_height=1", ["GET /v1/index/events", "GET /v1/streams/events/stream"]],
      ["/v1/streams/events?to_height=1", ["GET /v1/index/events"]],
      ["/v1/streams/events/stream?limit=5", ["GET /v1/index/events", "GET /v1/streams/events"]],
    ];
    for (const [path, routes] of cases) {
      const body = await expectError(path, 400, "UNKNOWN_PARAMETER");
      expect(body.details?.acceptedBy, path).toEqual(routes);
      for (const route of routes) expect(body.error, path).toContain(route.slice("GET ".length));
    }
  });
  it("offset-style paging is refused with a pointer to the cursor", async () => {
    const body = await expectError("/v1/index/events?offset=10", 400, "INVALID_PARAMETER");
    expect(body.details).toMatchObject({ use: "cursor" });
    await expectError("/v1/index/events?_offset=10", 400, "INVALID_PARAMETER");
  });
});

describe("GET /v1/streams/events: 400 rules", () => {
  for (const limit of ["0", "-3", "2.5", "1001", "x"]) {
    it(`limit=${limit} is 400 INVALID_PARAMETER`, async () => {
      await expectError(`/v1/streams/events?limit=${limit}`, 400, "INVALID_PARAMETER");
    });
  }
  it("an unknown type is 400 listing every valid type", async () => {
    const body = await expectError("/v1/streams/events?types=stx_transfer,bogus", 400, "INVALID_PARAMETER");
    expect(body.details?.allowed).toEqual([...EVENT_TYPES]);
    for (const t of EVENT_TYPES) expect(body.error).toContain(t);
    const suggested = await expectError("/v1/streams/events?types=ft_transfr", 400, "INVALID_PARAMETER");
    expect(suggested.details?.suggestion).toBe("ft_transfer");
    await expectError("/v1/streams/events?not_types=nope", 400, "INVALID_PARAMETER");
  });
  for (const q of [
    "types=",
    "types=print,,ft_mint",
    "not_types=",
    "sender=",
    "recipient=",
    "contract_id=",
    "asset_identifier=",
  ]) {
    it(`${q} (an empty value) is 400`, async () => {
      await expectError(`/v1/streams/events?${q}`, 400, "INVALID_PARAMETER");
    });
  }
  it("a filter value over 256 characters is 400", async () => {
    await expectError(`/v1/streams/events?sender=${"S".repeat(257)}`, 400, "INVALID_PARAMETER");
  });
  it("types may be repeated; other filters may not", async () => {
    expect((await fetch(`${base}/v1/streams/events?types=print&types=ft_mint`)).status).toBe(200);
    await expectError("/v1/streams/events?sender=a&sender=b", 400, "INVALID_PARAMETER");
  });
  it("parameters of the Index route are unknown here", async () => {
    await expectError("/v1/streams/events?from_height=1", 400, "UNKNOWN_PARAMETER");
    await expectError("/v1/streams/events?from_cursor=1:0", 400, "UNKNOWN_PARAMETER");
    await expectError("/v1/streams/events?cursor=nope", 400, "INVALID_CURSOR");
  });
});

describe("GET /v1/streams/events/stream: 400 rules (before the stream opens)", () => {
  it("more than one start position is 400", async () => {
    await expectError("/v1/streams/events/stream?cursor=1:0&from_height=3", 400, "INVALID_PARAMETER");
    await expectError("/v1/streams/events/stream?cursor=1:0&from_cursor=1:0", 400, "INVALID_PARAMETER");
  });
  it("a bad Last-Event-ID or cursor is 400 INVALID_CURSOR", async () => {
    await expectError("/v1/streams/events/stream", 400, "INVALID_CURSOR", { headers: { "last-event-id": "nope" } });
    await expectError("/v1/streams/events/stream?from_cursor=x", 400, "INVALID_CURSOR");
  });
  it("a HEAD request answers the headers and ends (it does not become a stream)", async () => {
    const res = await fetch(`${base}/v1/streams/events/stream`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  });
  it("unknown parameters and types are 400", async () => {
    await expectError("/v1/streams/events/stream?limit=5", 400, "UNKNOWN_PARAMETER");
    await expectError("/v1/streams/events/stream?types=nope", 400, "INVALID_PARAMETER");
  });
});

describe("print-schema, proof and signing-key: 400 and 404 rules", () => {
  it("any query parameter on print-schema is 400 VALIDATION_ERROR", async () => {
    for (const q of ["x=1", "limit=5", "cursor=1:0", "a"]) {
      await expectError(`/v1/index/contracts/${contractId}/print-schema?${q}`, 400, "VALIDATION_ERROR");
    }
    expect((await fetch(`${base}/v1/index/contracts/${contractId}/print-schema`)).status).toBe(200);
  });
  it("a malformed contract id is 400; an unknown one is 404 CONTRACT_NOT_FOUND", async () => {
    await expectError("/v1/index/contracts/not-a-contract/print-schema", 400, "INVALID_PARAMETER");
    await expectError(
      "/v1/index/contracts/ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.nothing-here/print-schema",
      404,
      "CONTRACT_NOT_FOUND",
    );
  });
  it("tx_id must be 0x + 64 hex digits", async () => {
    for (const bad of [
      "abc",
      "0x12",
      `${"0".repeat(66)}`,
      `0x${"g".repeat(64)}`,
      `0x${"a".repeat(65)}`,
      `${txId.slice(2)}`,
    ]) {
      await expectError(`/v1/index/transactions/${bad}/proof`, 400, "INVALID_PARAMETER");
    }
  });
  it("an unknown transaction is 404 TX_NOT_FOUND; query parameters are 400", async () => {
    await expectError(`/v1/index/transactions/0x${"ab".repeat(32)}/proof`, 404, "TX_NOT_FOUND");
    await expectError(`/v1/index/transactions/${txId}/proof?x=1`, 400, "UNKNOWN_PARAMETER");
    expect((await fetch(`${base}/v1/index/transactions/${txId.toUpperCase().replace("0X", "0x")}/proof`)).status).toBe(
      200,
    );
  });
  it("the signing key takes no parameters", async () => {
    await expectError("/public/streams/signing-key?x=1", 400, "UNKNOWN_PARAMETER");
  });
});

/** mulberry32: a small seeded PRNG, so a failing fuzz case can be replayed from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("fuzzed query strings never produce a 5xx", () => {
  const SEED = Number(process.env.FUZZ_SEED ?? 20_260_101);
  const names = [
    "limit",
    "cursor",
    "from_cursor",
    "from_height",
    "to_height",
    "types",
    "not_types",
    "contract_id",
    "sender",
    "recipient",
    "asset_identifier",
    "_limit",
    "offset",
    "a[b]",
    "types[]",
    "",
    "%00",
    "limit%00",
    "__proto__",
    "constructor",
    "toString",
  ];
  const values = [
    "",
    "0",
    "1",
    "-1",
    "200",
    "1000",
    "1001",
    "2147483647",
    "2147483648",
    "9007199254740993",
    "1e3",
    "0x10",
    "1.0",
    "3:0",
    "0:0",
    "-1:-1",
    "2147483647:2147483647",
    "2147483648:0",
    "1:",
    ":1",
    "a:b",
    "print",
    "ft_transfer,print",
    "stx_transfer,,",
    "STX",
    "'; DROP TABLE chain.events; --",
    "\u0000",
    "%ZZ",
    "%",
    "ü",
    "😀",
    "S".repeat(300),
    "SP000000000000000000002Q6VF78.bns",
    "null",
    "undefined",
    "[]",
    "{}",
    "true",
  ];
  const paths = [
    "/v1/index/events",
    "/v1/streams/events",
    "/v1/index/contracts/SP000000000000000000002Q6VF78.bns/print-schema",
    "/v1/index/transactions/0x0000000000000000000000000000000000000000000000000000000000000000/proof",
    "/public/streams/signing-key",
  ];

  it(`600 random requests (seed ${SEED}; FUZZ_SEED replays)`, async () => {
    const rand = prng(SEED);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    const encode = (s: string) => (rand() < 0.8 ? encodeURIComponent(s) : s.replace(/[#&\s]/g, ""));
    for (let i = 0; i < 600; i++) {
      const parts: string[] = [];
      const n = Math.floor(rand() * 4);
      for (let k = 0; k < n; k++) parts.push(`${encode(pick(names))}=${encode(pick(values))}`);
      const url = `${base}${pick(paths)}${parts.length ? `?${parts.join("&")}` : ""}`;
      const res = await fetch(url);
      await res.arrayBuffer();
      expect(res.status, `seed ${SEED} request ${i}: ${url}`).toBeLessThan(500);
    }
  });
});
