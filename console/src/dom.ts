/** A tiny element builder: h("td", { class: "num" }, "42"). Text is always set as text, never parsed as HTML. */
export type Child = Node | string | number | null | undefined | false;
type Handler = (event: Event) => void;
export interface Props {
  class?: string;
  /** Attributes set verbatim (data-testid, for, type, placeholder, href, ...). */
  attrs?: Record<string, string | number | boolean | undefined>;
  /** Event listeners: { click: fn }. */
  on?: Record<string, Handler>;
  value?: string;
  checked?: boolean;
  disabled?: boolean;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props?.class) el.className = props.class;
  for (const [name, value] of Object.entries(props?.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [name, fn] of Object.entries(props?.on ?? {})) el.addEventListener(name, fn);
  if (props?.value !== undefined) (el as unknown as HTMLInputElement).value = props.value;
  if (props?.checked !== undefined) (el as unknown as HTMLInputElement).checked = props.checked;
  if (props?.disabled !== undefined) (el as unknown as HTMLButtonElement).disabled = props.disabled;
  append(el, children);
  return el;
}

export function append(el: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of `el`. */
export function replace(el: Node, ...children: (Child | Child[])[]): void {
  while (el.firstChild) el.removeChild(el.firstChild);
  append(el, children);
}

/** A figure as operators read it: 12,345; null and undefined as an em dash. */
export function fmt(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "number") return Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(2);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A table of objects: one column per key in `columns`, cells rendered by fmt unless `cell` says otherwise. */
export function table(
  columns: string[],
  rows: Record<string, unknown>[],
  cell: (row: Record<string, unknown>, column: string) => Child = (row, column) => fmt(row[column]),
  props: Props | null = null,
): HTMLTableElement {
  return h(
    "table",
    props,
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        columns.map((c) => h("th", null, c)),
      ),
    ),
    h(
      "tbody",
      null,
      rows.map((row) =>
        h(
          "tr",
          null,
          columns.map((c) => h("td", { attrs: { "data-col": c } }, cell(row, c))),
        ),
      ),
    ),
  );
}

/** A message line for an error an API call answered. */
export function errorLine(err: unknown): HTMLElement {
  return h("p", { class: "error", attrs: { role: "alert" } }, err instanceof Error ? err.message : String(err));
}
