/** Whole simulations: in memory (tests, small runs) or streamed to a replay TSV with its ground truth beside it. */
import { createWriteStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import { finished } from "node:stream/promises";
import { ChainSimulator, type SimPayload } from "./chain.js";
import type { SimulatorInput } from "./options.js";
import { writeReplayTsv } from "./output.js";
import type { GroundTruth } from "./truth.js";

/** Generates a whole (finite) simulation in memory: every payload plus the ground truth. */
export function simulateChain(options: SimulatorInput = {}): { payloads: SimPayload[]; truth: GroundTruth } {
  const simulator = new ChainSimulator(options);
  const payloads = [...simulator.payloads()];
  return { payloads, truth: simulator.truth() };
}

/** Streams a simulation to an event-replay TSV and writes `<tsvPath>.truth.json` beside it. */
export async function writeSimulation(
  options: SimulatorInput,
  tsvPath: string,
  { onProgress }: { onProgress?: (lines: number) => void } = {},
): Promise<{ lines: number; truth: GroundTruth; truthPath: string }> {
  const simulator = new ChainSimulator(options);
  const stream = createWriteStream(tsvPath);
  const lines = await writeReplayTsv(stream, simulator.payloads(), { onProgress });
  stream.end();
  await finished(stream);
  const truth = simulator.truth();
  const truthPath = `${tsvPath}.truth.json`;
  await writeFile(truthPath, `${JSON.stringify(truth, null, 2)}\n`);
  return { lines, truth, truthPath };
}
