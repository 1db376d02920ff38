/**
 * A simulated devnet chain fed to a running service a few blocks at a time (webhook tests that
 * create webhooks between blocks).
 */
import type { Service } from "../../runtime/service.js";
import { ChainSimulator } from "../../runtime/simulator/index.js";
import { postObserver } from "./service.js";

export interface ChainFeed {
  /** Posts the chain's next `blocks` blocks (and what comes between them); waits until they are ingested. */
  ingest(svc: Service, blocks: number): Promise<void>;
}

export function chainFeed(seed: string, options: { blocks?: number; eventsPerBlock?: number } = {}): ChainFeed {
  const payloads = new ChainSimulator({
    seed,
    blocks: options.blocks ?? 200,
    eventsPerBlock: options.eventsPerBlock ?? 10,
    forkRate: 0,
  })
    .payloads()
    [Symbol.iterator]();
  return {
    async ingest(svc, blocks) {
      let posted = 0;
      while (posted < blocks) {
        const next = payloads.next();
        if (next.done) throw new Error("the simulated chain ran out");
        await postObserver(svc.observerUrl, next.value.path, JSON.stringify(next.value.body));
        if (next.value.path === "/new_block") posted++;
      }
      await svc.idle();
    },
  };
}
