/**
 * Decoding an observer request (DESIGN.md §2 step 2), pure: the body of `/new_block` or
 * `/new_burn_block` parsed and decoded; any other path carries nothing to index. Runs on the
 * import's decoder thread too (runtime/cli/decode-worker.ts).
 */
import { MalformedPayloadError, errorMessage } from "../internal/errors.js";
import { decodeNewBlock, decodeNewBurnBlock } from "./decode/index.js";
import { malformedReason } from "./malformed.js";
import type { DecodedBlock, DecodedBurnBlock } from "./types.js";

export type Decoded =
  | { kind: "block"; block: DecodedBlock }
  | { kind: "burn_block"; burn: DecodedBurnBlock }
  | { kind: "other" };

export type DecodeResult = Decoded | { kind: "malformed"; reason: string };

/** Parses and decodes a request body; throws MalformedPayloadError on bad input. */
export function decodeRequest(path: string, body: string): Decoded {
  if (path !== "/new_block" && path !== "/new_burn_block") return { kind: "other" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw new MalformedPayloadError(`body is not JSON: ${errorMessage(err)}`, { cause: err });
  }
  return path === "/new_block"
    ? { kind: "block", block: decodeNewBlock(parsed) }
    : { kind: "burn_block", burn: decodeNewBurnBlock(parsed) };
}

/** Decodes a request, turning every failure into a `malformed` result (never throws). */
export function tryDecode(path: string, body: string): DecodeResult {
  try {
    return decodeRequest(path, body);
  } catch (err) {
    return { kind: "malformed", reason: malformedReason("decode", err) ?? errorMessage(err) };
  }
}
