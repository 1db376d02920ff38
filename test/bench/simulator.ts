/**
 * Simulator throughput (a script, not a test): `npx tsx test/bench/simulator.ts [blocks] [events-per-block]`.
 * Prints blocks/s for generation alone and for generation plus replay-TSV serialization.
 */
import { ChainSimulator, replayLine } from "../../runtime/simulator/index.js";

const blocks = Number(process.argv[2] ?? 20_000);
const eventsPerBlock = Number(process.argv[3] ?? 30);

function measure(label: string, serialize: boolean): void {
  const started = performance.now();
  const simulator = new ChainSimulator({ seed: "bench", blocks, eventsPerBlock });
  let newBlocks = 0;
  let events = 0;
  let bytes = 0;
  let id = 0;
  for (const payload of simulator.payloads()) {
    if (serialize) bytes += replayLine(++id, payload).length;
    if (payload.path !== "/new_block") continue;
    newBlocks++;
    events += (payload.body.events as unknown[]).length;
  }
  const seconds = (performance.now() - started) / 1000;
  const size = serialize ? `, ${(bytes / 1e6).toFixed(0)} MB of TSV` : "";
  console.log(
    `${label}: ${newBlocks} blocks, ${events} events in ${seconds.toFixed(2)} s → ${Math.round(newBlocks / seconds)} blocks/s, ${Math.round(events / seconds)} events/s${size}`,
  );
}

measure("generate", false);
measure("generate + TSV lines", true);
