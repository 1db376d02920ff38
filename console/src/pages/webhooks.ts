import { h, replace } from "../dom.js";

export function renderWebhooks(root: HTMLElement): void {
  replace(root, h("h1", null, "Webhooks"), h("p", { class: "muted" }, "Not available yet."));
}
