/** Observer payload decoder, pure functions (DESIGN.md §2 "decode", §3 print decoding). */
export {
  type ClarityTypeSignature,
  clarityToJson,
  clarityTypeSignature,
  decodeClarityHex,
  decodeClarityValue,
  mergeClarityTypeSignatures,
} from "./clarity-json.js";
export { type DecodedNewBlock, decodeNewBlock, decodeNewBurnBlock } from "./decode-block.js";
export { compareEvents, type DecodedEvents, decodeEvent, decodeEvents } from "./decode-events.js";
export { decodeMaturedMinerRewards } from "./decode-miner-rewards.js";
export { decodeTx } from "./decode-tx.js";
