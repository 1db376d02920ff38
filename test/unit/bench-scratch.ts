import { ChainSimulator, replayLine } from "../../runtime/simulator/index.js";
const blocks = Number(process.argv[2] ?? 2000);
let t0 = performance.now();
const sim = new ChainSimulator({ seed: "bench", blocks, eventsPerBlock: 30 });
let n = 0, ev = 0, bytes = 0, nb = 0;
for (const p of sim.payloads()) { n++; if (p.path === "/new_block") { nb++; ev += (p.body.events as unknown[]).length; } }
let s = (performance.now() - t0) / 1000;
console.log(`generate: ${nb} blocks ${ev} events in ${s.toFixed(2)}s = ${(nb / s).toFixed(0)} blocks/s`);
t0 = performance.now();
const sim2 = new ChainSimulator({ seed: "bench", blocks, eventsPerBlock: 30 });
let id = 0;
for (const p of sim2.payloads()) { bytes += replayLine(++id, p).length; }
s = (performance.now() - t0) / 1000;
console.log(`generate+serialize: ${(blocks / s).toFixed(0)} blocks/s, ${(bytes/1e6).toFixed(1)} MB`);
