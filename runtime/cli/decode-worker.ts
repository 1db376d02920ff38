/**
 * Worker thread of `sluice import` (worker-decoder.ts): decodes batches of observer requests
 * (JSON parse, transaction and Clarity decoding — about a third of an import's CPU) on the second
 * core while the main thread drives the database. Answers each batch with its results in order.
 */
import { parentPort } from "node:worker_threads";
import { tryDecode } from "../chain/decode-request.js";
import type { DecodeRequest, DecodeResponse } from "./worker-decoder.js";

parentPort?.on("message", (message: DecodeRequest) => {
  const response: DecodeResponse = {
    id: message.id,
    results: message.items.map((item) => tryDecode(item.path, item.body)),
  };
  parentPort?.postMessage(response);
});
