/**
 * The SDK's entry (`sluice/sdk`, README "SDK"): the typed client, its SSE consumer, the
 * checkpoint helper, and the webhook receiver helpers.
 */
export { createSluiceClient, type SluiceClient, type SluiceClientOptions, type Schemas } from "./client.js";
export { SluiceApiError } from "./errors.js";
export { backoffDelay, type SseFrame, type SseOptions, sseFrames } from "./sse.js";
export { type Checkpoint, fileCheckpoint } from "./checkpoint.js";
export * from "./webhook-receiver.js";
