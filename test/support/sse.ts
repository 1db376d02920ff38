/** A Server-Sent Events client for tests: fetch + eventsource-parser (v3), frames kept in order. */
import { type EventSourceMessage, createParser } from "eventsource-parser";

export type SseItem =
  | { kind: "event"; id: string | undefined; event: string | undefined; data: string }
  | { kind: "comment"; text: string };

export interface SseClient {
  status: number;
  items: SseItem[];
  /** Resolves once the response ends (or is aborted). */
  done: Promise<void>;
  close(): void;
}

/** Opens an SSE stream with fetch and parses it with eventsource-parser. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: controller.signal });
  const items: SseItem[] = [];
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => items.push({ kind: "event", id: m.id, event: m.event, data: m.data }),
    onComment: (text: string) => items.push({ kind: "comment", text: text.trim() }),
  });
  const done = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // aborted
    }
  })();
  return { status: res.status, items, done, close: () => controller.abort() };
}
