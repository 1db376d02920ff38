/** What Extended view handlers receive, and the shape of one route (routes.ts lists them all). */
import type { Request } from "express";
import type { Db } from "../db/types.js";

export interface ExtendedContext {
  db: Db;
}

/** Answers 200 with the returned body; throws ExtendedError (errors.ts) for anything else. */
export type ExtendedHandler = (req: Request, ctx: ExtendedContext) => Promise<unknown>;

export interface ExtendedRoute {
  /** Express path under the Extended port, e.g. `/extended/v1/tx/:tx_id`. */
  path: string;
  /** Query parameters it takes; any other is 400 (an unhonoured Hiro filter would answer wrongly). */
  query: readonly string[];
  handler: ExtendedHandler;
}

/** A path parameter as text (Express 5 types them as string | string[]). */
export const pathParam = (req: Request, name: string): string => String(req.params[name]);
