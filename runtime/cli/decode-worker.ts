/**
 * Worker thread of `sluice import` (worker-decoder.ts): decodes batches of observer requests
 * (JSON parse, transaction and Clarity decoding — about a third of an import's CPU) on the second
 * core while the main thread drives the database, and, for PostgreSQL, encodes each block's chain
 * rows (encoded-block-rows.ts). Answers each batch with its results in order.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type DecodeResult, tryDecode } from "../chain/decode-request.js";
import { encodeBlockRows } from "../chain/encoded-block-rows.js";
import type { DecodeRequest, DecodeResponse, WorkerDecoderOptions } from "./worker-decoder.js";

const options = (workerData ?? {}) as WorkerDecoderOptions;

function decode(path: string, body: string): DecodeResult {
  const result = tryDecode(path, body);
  if (options.encodeChainRows && result.kind === "block") {
    result.block.encodedRows = encodeBlockRows(result.block) ?? undefined;
  }
  return result;
}

parentPort?.on("message", (message: DecodeRequest) => {
  const response: DecodeResponse = {
    id: message.id,
    results: message.items.map((item) => decode(item.path, item.body)),
  };
  parentPort?.postMessage(response);
});
