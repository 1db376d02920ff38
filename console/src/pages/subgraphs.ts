import { h, replace } from "../dom.js";

export function renderSubgraphs(root: HTMLElement): void {
  replace(root, h("h1", null, "Subgraphs"), h("p", { class: "muted" }, "Not available yet."));
}
