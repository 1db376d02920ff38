// Receivers for test/bench/webhooks.ts, in their own process so they do not share the dispatcher's
// event loop: `node webhook-receivers.mjs <healthy> <stuck>` starts that many node:http servers on
// ephemeral ports (healthy ones answer 204 at once, stuck ones never answer), prints their URLs as
// one JSON line, and prints `{"count": n}` whenever it reads a line on stdin.
import http from "node:http";
import readline from "node:readline";

const [healthy, stuck] = process.argv.slice(2).map(Number);
let count = 0;

function serve(answer) {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        count++;
        if (answer) {
          res.writeHead(204);
          res.end();
        }
      });
    });
    server.keepAliveTimeout = 60_000;
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}/hook`));
  });
}

const urls = { healthy: [], stuck: [] };
for (let i = 0; i < healthy; i++) urls.healthy.push(await serve(true));
for (let i = 0; i < stuck; i++) urls.stuck.push(await serve(false));
process.stdout.write(`${JSON.stringify(urls)}\n`);
readline
  .createInterface({ input: process.stdin })
  .on("line", () => process.stdout.write(`${JSON.stringify({ count })}\n`));
