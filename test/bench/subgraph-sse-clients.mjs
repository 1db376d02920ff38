// SSE load generator for test/bench/subgraph-read.ts (run by it with child_process.fork; not a
// test). Opens CLIENTS raw HTTP connections to URL on loopback, in batches so the server's listen
// backlog never overflows, and records when each client receives each row frame (`id: <_id>`
// without an `event:` line). The parent sends {type: "round", id, t0} after committing a row; the
// child answers {type: "result", latencies, missing} once every client has the row or after 5 s.
import http from "node:http";
import { performance } from "node:perf_hooks";

const URL_ = process.env.SSE_URL;
const CLIENTS = Number(process.env.SSE_CLIENTS ?? 1000);
const BATCH = 200;
const now = () => performance.timeOrigin + performance.now();

/** row id → receipt times (ms since epoch, sub-ms precision) */
const arrivals = new Map();
const sockets = [];
let connected = 0;
let failed = 0;

function open() {
  return new Promise((resolve) => {
    const req = http.get(URL_, { agent: false, headers: { accept: "text/event-stream" } }, (res) => {
      res.setEncoding("utf8");
      let buf = "";
      let ready = false;
      res.on("data", (chunk) => {
        buf += chunk;
        if (!ready && buf.includes("retry:")) {
          ready = true;
          connected++;
          resolve();
        }
        for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const m = /^id: (\d+)$/m.exec(frame);
          if (m && !frame.includes("\nevent:") && !frame.startsWith("event:")) {
            const list = arrivals.get(m[1]) ?? [];
            arrivals.set(m[1], list);
            list.push(now());
          }
        }
      });
      res.on("error", () => {});
    });
    req.on("error", () => {
      failed++;
      resolve();
    });
    sockets.push(req);
  });
}

for (let i = 0; i < CLIENTS; i += BATCH) {
  await Promise.all(Array.from({ length: Math.min(BATCH, CLIENTS - i) }, open));
}
process.send({ type: "ready", connected, failed });

process.on("message", async (msg) => {
  if (msg.type === "round") {
    const id = String(msg.id);
    const deadline = Date.now() + 5000;
    while ((arrivals.get(id)?.length ?? 0) < connected && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    const times = arrivals.get(id) ?? [];
    process.send({ type: "result", latencies: times.map((t) => t - msg.t0), missing: connected - times.length });
  } else if (msg.type === "close") {
    for (const s of sockets) s.destroy();
    process.exit(0);
  }
});
