// Receivers for test/bench/webhooks.ts, in their own process so they do not share the dispatcher's
// event loop: `node webhook-receivers.mjs <healthy> <stuck>` starts that many servers on ephemeral
// ports (healthy ones answer 204 as soon as a request's body has arrived, stuck ones read and never
// answer), prints their URLs as one JSON line, and on each line read from stdin prints
// `{"count": n, "cpuMs": t}`: requests answered so far and this process's CPU time.
//
// The healthy receivers speak just enough HTTP/1.1 over plain sockets for the dispatcher's POSTs
// (a head, then `content-length` bytes of body, keep-alive): the benchmark measures the sender, so
// the receivers should cost as little CPU as a receiver can. A request they cannot frame (no
// content-length, chunked) gets a 400 and the connection closed, which the benchmark would see as
// failed deliveries.
import net from "node:net";
import readline from "node:readline";

const [healthy, stuck] = process.argv.slice(2).map(Number);
let count = 0;

const NO_CONTENT = Buffer.from("HTTP/1.1 204 No Content\r\nconnection: keep-alive\r\nkeep-alive: timeout=60\r\n\r\n");
const BAD_REQUEST = Buffer.from("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

function onConnection(socket, answer) {
  socket.setNoDelay(true);
  let buffered = Buffer.alloc(0);
  let bodyLeft = -1; // bytes of the current body still to come; -1: reading a head
  socket.on("data", (chunk) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    let replies = 0;
    for (;;) {
      if (bodyLeft < 0) {
        const end = buffered.indexOf(HEAD_END);
        if (end < 0) break;
        const head = buffered.toString("latin1", 0, end);
        const length = CONTENT_LENGTH.exec(head);
        if (!length || /\r\ntransfer-encoding:/i.test(head)) {
          socket.end(BAD_REQUEST);
          return;
        }
        bodyLeft = Number(length[1]);
        buffered = buffered.subarray(end + HEAD_END.length);
      }
      if (buffered.length < bodyLeft) {
        bodyLeft -= buffered.length;
        buffered = Buffer.alloc(0);
        break;
      }
      buffered = buffered.subarray(bodyLeft);
      bodyLeft = -1;
      count++;
      replies++;
    }
    if (answer && replies) socket.write(replies === 1 ? NO_CONTENT : Buffer.concat(Array(replies).fill(NO_CONTENT)));
  });
  socket.on("error", () => {});
}

function serve(answer) {
  return new Promise((resolve) => {
    const server = net.createServer((socket) => onConnection(socket, answer));
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}/hook`));
  });
}

const urls = { healthy: [], stuck: [] };
for (let i = 0; i < healthy; i++) urls.healthy.push(await serve(true));
for (let i = 0; i < stuck; i++) urls.stuck.push(await serve(false));
process.stdout.write(`${JSON.stringify(urls)}\n`);
readline.createInterface({ input: process.stdin }).on("line", () => {
  const cpu = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ count, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
});
