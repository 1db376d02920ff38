/** Public API of the devnet chain simulator: generate payloads, their ground truth, and write or post them. */
export { ChainSimulator, type ObserverPath, type SimPayload } from "./chain.js";
export { DEFAULT_MIX, MIX_KEYS, type MixKey } from "./actions.js";
export {
  DEFAULT_OPTIONS,
  parseMix,
  parseRate,
  resolveOptions,
  type Rate,
  type SigningMode,
  type SimulatorInput,
  type SimulatorOptions,
} from "./options.js";
export { postToObserver, replayLine, writeReplayTsv, type PostOptions, type PostResult } from "./output.js";
export { simulateChain, writeSimulation } from "./simulate.js";
export type { ForkRecord, GroundTruth, SbtcPrintTruth } from "./truth.js";
export { registerSimulateCommand } from "./command.js";
