import { h, replace } from "../dom.js";

export function renderChain(root: HTMLElement): void {
  replace(root, h("h1", null, "Chain"), h("p", { class: "muted" }, "Not available yet."));
}
