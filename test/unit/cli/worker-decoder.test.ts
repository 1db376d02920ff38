import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tryDecode } from "../../../runtime/chain/decode-request.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { type BatchDecoder, startWorkerDecoder } from "../../../runtime/cli/worker-decoder.js";

describe("decoding import batches on a worker thread", () => {
  let decoder: BatchDecoder;
  beforeAll(async () => {
    decoder = await startWorkerDecoder();
  });
  afterAll(async () => {
    await decoder?.close();
  });

  it("gives, in order, what decoding on this thread gives, malformed requests included", async () => {
    const { payloads } = simulateChain({ seed: "worker-decoder", blocks: 15, eventsPerBlock: 20, forkRate: 0.2 });
    const items = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    items.splice(3, 0, { path: "/new_block", body: "{not json" });
    items.splice(7, 0, { path: "/new_block", body: JSON.stringify({ block_height: "x" }) });
    const [first, second] = await Promise.all([decoder.decode(items.slice(0, 10)), decoder.decode(items.slice(10))]);
    const want = items.map((i) => tryDecode(i.path, i.body));
    expect([...first, ...second]).toEqual(want);
    expect(want.filter((r) => r.kind === "malformed")).toHaveLength(2);
    expect(want.filter((r) => r.kind === "block").length).toBeGreaterThan(10);
  });
});
