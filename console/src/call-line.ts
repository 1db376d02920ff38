import { curlFor } from "./api.js";
import { h } from "./dom.js";

/** The GET a view made, with the same call as a curl command to copy. */
export function callLine(url: string): HTMLElement {
  const curl = curlFor(location.origin + url);
  const copy = h("button", { class: "secondary", attrs: { type: "button" } }, "Copy curl");
  copy.addEventListener("click", () => {
    void navigator.clipboard?.writeText(curl).then(() => {
      copy.textContent = "Copied";
    });
  });
  return h(
    "div",
    { class: "card" },
    h("div", null, "GET ", h("code", { attrs: { "data-testid": "query-url" } }, url)),
    h("div", { class: "row" }, h("code", { attrs: { "data-testid": "curl" } }, curl), copy),
  );
}
