/**
 * The stacks-node event-observer server (DESIGN.md §4): every POST is journaled durably, then
 * answered 200 (the node retries anything else forever), then processed in order. Only loopback
 * and the OBSERVER_ALLOW_FROM addresses may call it.
 */
import express from "express";
import { type AddressRange, createAddressMatcher } from "../config/address-allow-list.js";
import type { Logger } from "../internal/logger.js";
import type { ObserverActivity } from "./activity.js";
import type { ObserverJournal } from "./journal.js";
import type { JournalProcessor } from "./processor.js";

/** The endpoints a stacks-node posts to; anything else is journaled too, with a warning. */
export const OBSERVER_PATHS = [
  "/new_block",
  "/new_burn_block",
  "/new_microblocks",
  "/new_mempool_tx",
  "/drop_mempool_tx",
  "/attachments/new",
  "/stackerdb_chunks",
  "/proposal_response",
] as const;

export function createObserverApp(deps: {
  /** Where a request is stored before it is acknowledged (database rows or a file, journal.ts). */
  journal: ObserverJournal;
  processor: JournalProcessor;
  logger: Logger;
  bodyLimit: number;
  /** OBSERVER_ALLOW_FROM (loopback is always allowed; null allows loopback only). */
  allowFrom: readonly AddressRange[] | null;
  /** Told of every accepted request (GET /api/node). */
  activity?: ObserverActivity;
}): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Checked before the body is read, so a refused request is never journaled.
  const allowed = createAddressMatcher(deps.allowFrom ?? []);
  app.use((req, res, next) => {
    const remote = req.socket.remoteAddress;
    if (allowed(remote)) return next();
    deps.logger.warn({ msg: "observer request refused: address not in OBSERVER_ALLOW_FROM", remote, path: req.path });
    // Connection: close, so a refused caller's body is not read off the socket.
    res
      .status(403)
      .set("Connection", "close")
      .json({
        error: `${remote ?? "this address"} is not allowed to post to the observer`,
        code: "OBSERVER_FORBIDDEN",
      });
  });
  // Any content type: the node sends application/json, but a body is a body.
  app.use(express.text({ type: () => true, limit: deps.bodyLimit }));

  app.get("/", (_req, res) => {
    res.json({ status: "ok", endpoints: OBSERVER_PATHS });
  });

  app.post(/.*/, async (req, res) => {
    const path = req.path;
    const body = typeof req.body === "string" ? req.body : "";
    deps.activity?.request(path);
    if (!(OBSERVER_PATHS as readonly string[]).includes(path)) {
      deps.logger.warn({ msg: "unknown observer path; journaled", path });
    }
    try {
      const entry = await deps.journal.append(path, body);
      // Acknowledged once durable, whatever the body holds: a malformed one is recorded as such
      // when processed (runtime/chain/malformed.ts), never refused, or the node would resend it forever.
      res.status(200).json({ result: "ok" });
      deps.processor.enqueue(entry);
    } catch (err) {
      // Not stored: a non-200 makes the node retry, which is what we want.
      deps.logger.error({ msg: "journal write failed", path, error: err });
      res.status(503).json({ error: "journal unavailable", code: "JOURNAL_UNAVAILABLE" });
    }
  });

  // Oversized or unreadable bodies: the node must retry (after an operator raises the limit).
  app.use(
    (
      err: Error & { status?: number; type?: string },
      _req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      deps.logger.error({ msg: "observer request rejected", error: err.message, type: err.type });
      res
        .status(err.status ?? 500)
        .json({ error: err.message, code: err.type === "entity.too.large" ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST" });
    },
  );
  return app;
}
