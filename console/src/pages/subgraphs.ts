/**
 * Subgraphs: the list (status, height, rows, schema hash), deploying a YAML spec (the validator's
 * errors shown at their lines), and per subgraph a table explorer (filters, `_search`, `_fields`,
 * sort, keyset paging, count, aggregates; the URL it calls with its curl) and reindex with progress.
 */
import { ApiError, api } from "../api.js";
import { callLine } from "../call-line.js";
import { errorLine, fmt, h, replace, table } from "../dom.js";
import {
  aggregateUrl,
  cellText,
  countUrl,
  type FilterTerm,
  listUrl,
  operatorsByColumn,
  type TableQuery,
} from "../query.js";

interface Progress {
  status: string;
  subgraph_height: number;
  blocks_done: number | null;
  blocks_total: number | null;
  error: string | null;
  reason: string | null;
}
interface SubgraphSummary {
  name: string;
  version: string;
  schemaHash: string;
  tables: Record<string, { rowCount: number }>;
  tip: { block_height: number | null; subgraph_height: number; blocks_behind: number };
  progress: Progress;
}
interface ColumnInfo {
  type: string;
  system: boolean;
}
interface TableInfo {
  columns: Record<string, ColumnInfo>;
  searchable: string[];
  sortable: string[];
  /** Filter parameter names (`kind`, `kind.neq`, …). */
  filters: string[];
  rowCount: number;
}
interface SubgraphDetail extends SubgraphSummary {
  tables: Record<string, TableInfo>;
}
interface SpecError {
  line: number;
  col: number;
  path: string;
  message: string;
}

const statusBadge = (status: string) =>
  h("span", { class: `badge ${status === "ready" ? "good" : status === "failed" ? "bad" : ""}` }, status);

export async function renderSubgraphs(root: HTMLElement, args: string[], signal: AbortSignal): Promise<void> {
  if (args[0]) return renderExplorer(root, args[0], signal);
  const listBox = h("section", null, h("p", { class: "muted" }, "loading…"));
  replace(root, h("h1", null, "Subgraphs"), listBox, h("h2", null, "Deploy a spec"), deployForm(signal));
  const { subgraphs } = await api<{ subgraphs: SubgraphSummary[] }>("GET", "/v1/subgraphs", undefined, { signal });
  replace(
    listBox,
    table(
      ["name", "version", "status", "height", "behind", "rows", "schemaHash"],
      subgraphs as unknown as Record<string, unknown>[],
      (row, column) => {
        const s = row as unknown as SubgraphSummary;
        switch (column) {
          case "name":
            return h("a", { attrs: { href: `#/subgraphs/${encodeURIComponent(s.name)}` } }, s.name);
          case "status":
            return statusBadge(s.progress.status);
          case "height":
            return fmt(s.tip.subgraph_height);
          case "behind":
            return fmt(s.tip.blocks_behind);
          case "rows":
            return Object.entries(s.tables)
              .map(([t, info]) => `${t}: ${fmt(info.rowCount)}`)
              .join(", ");
          case "schemaHash":
            return h("code", null, s.schemaHash.slice(0, 16));
          default:
            return fmt(row[column]);
        }
      },
      { attrs: { "data-testid": "subgraph-list" } },
    ),
  );
}

/** The deploy form: YAML in, and on SPEC_INVALID the spec again with each error under its line. */
function deployForm(signal: AbortSignal): HTMLElement {
  const spec = h("textarea", {
    attrs: { rows: 16, spellcheck: "false", "data-testid": "spec-input", "aria-label": "Spec YAML" },
  });
  spec.placeholder = "name: my-subgraph\nversion: 1.0.0\nsources: …\ntables: …\nhandlers: …";
  const replaceBox = h("input", { attrs: { type: "checkbox" } });
  const result = h("div", { attrs: { "data-testid": "deploy-result" } });
  const deploy = async () => {
    replace(result, h("p", { class: "muted" }, "deploying…"));
    const text = spec.value;
    try {
      const path = replaceBox.checked ? "/api/subgraphs?replace=true" : "/api/subgraphs";
      const answer = await api<{ name: string; action: string; status: string }>("POST", path, text, {
        contentType: "application/yaml",
        signal,
      });
      replace(
        result,
        h("p", { class: "ok" }, `${answer.name}: ${answer.action} (${answer.status}) `),
        h("a", { attrs: { href: `#/subgraphs/${encodeURIComponent(answer.name)}` } }, "open"),
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === "SPEC_INVALID") {
        const errors = ((err.details?.errors ?? []) as SpecError[]).filter((e) => typeof e.line === "number");
        replace(
          result,
          h("p", { class: "error" }, `The spec is invalid (${errors.length} error(s)):`),
          specWithErrors(text, errors),
        );
      } else replace(result, errorLine(err));
    }
  };
  return h(
    "section",
    { class: "card" },
    spec,
    h(
      "div",
      { class: "row" },
      h("label", null, replaceBox, " replace (rebuild on a breaking change)"),
      h("button", { attrs: { type: "button", "data-testid": "deploy" }, on: { click: () => void deploy() } }, "Deploy"),
    ),
    result,
  );
}

function specWithErrors(text: string, errors: SpecError[]): HTMLElement {
  const lines = text.split("\n");
  const byLine = new Map<number, SpecError[]>();
  for (const e of errors) byLine.set(Math.min(Math.max(e.line, 1), lines.length), [...(byLine.get(e.line) ?? []), e]);
  return h(
    "div",
    { class: "spec-lines mono", attrs: { "data-testid": "spec-errors" } },
    lines.map((line, i) => {
      const n = i + 1;
      const here = byLine.get(n) ?? [];
      return h(
        "div",
        { class: `spec-line${here.length ? " has-error" : ""}`, attrs: { "data-line": n } },
        h("span", { class: "n" }, n),
        h("span", null, line || " "),
        here.map((e) => h("span", { class: "msg" }, `↑ col ${e.col}${e.path ? ` (${e.path})` : ""}: ${e.message}`)),
      );
    }),
  );
}

async function renderExplorer(root: HTMLElement, name: string, signal: AbortSignal): Promise<void> {
  const detail = await api<SubgraphDetail>("GET", `/v1/subgraphs/${encodeURIComponent(name)}`, undefined, { signal });
  const tables = Object.keys(detail.tables);
  const q: TableQuery = {
    subgraph: name,
    table: tables[0] ?? "",
    filters: [],
    search: "",
    fields: "",
    sort: "",
    order: "asc",
    limit: 25,
    cursor: "",
  };

  const progressBox = h("div", { attrs: { "data-testid": "progress" } });
  const drawProgress = (p: Progress) => {
    const bar = h("progress", { attrs: { max: p.blocks_total ?? 1, value: p.blocks_done ?? 0 } });
    replace(
      progressBox,
      statusBadge(p.status),
      " height ",
      fmt(p.subgraph_height),
      p.blocks_total ? [" ", bar, ` ${fmt(p.blocks_done)} / ${fmt(p.blocks_total)} blocks`] : null,
      p.error ? h("p", { class: "error" }, p.error) : null,
      p.reason ? h("p", { class: "muted" }, p.reason) : null,
    );
  };
  drawProgress(detail.progress);
  const reindex = async () => {
    if (!confirm(`Reindex ${name}? Its tables are rebuilt from the stored blocks.`)) return;
    try {
      drawProgress(await api<Progress>("POST", `/api/subgraphs/${encodeURIComponent(name)}/reindex`, {}, { signal }));
      for (;;) {
        await new Promise((r) => setTimeout(r, 1000));
        if (signal.aborted) return;
        const now = await api<SubgraphDetail>("GET", `/v1/subgraphs/${encodeURIComponent(name)}`, undefined, {
          signal,
        });
        drawProgress(now.progress);
        if (now.progress.status !== "reindexing" && now.progress.status !== "backfilling") return;
      }
    } catch (err) {
      progressBox.append(errorLine(err));
    }
  };

  const form = h("section", { class: "card", attrs: { "data-testid": "explorer" } });
  const out = h("section", { attrs: { "data-testid": "results" } });
  const meta = () => detail.tables[q.table];

  const drawForm = () => {
    const m = meta();
    const ops = operatorsByColumn(m.filters);
    const filterColumns = Object.keys(ops);
    const tableSelect = h(
      "select",
      { attrs: { "aria-label": "Table", "data-testid": "table-select" } },
      tables.map((t) => h("option", { attrs: { value: t, selected: t === q.table } }, t)),
    );
    tableSelect.addEventListener("change", () => {
      q.table = tableSelect.value;
      q.filters = [];
      q.sort = "";
      q.fields = "";
      q.search = "";
      drawForm();
    });
    const filterRows = q.filters.map((f, i) =>
      filterRow(f, ops, m, () => {
        q.filters.splice(i, 1);
        drawForm();
      }),
    );
    const search = h("input", {
      value: q.search,
      attrs: {
        "aria-label": "Search",
        placeholder: m.searchable.join(", ") || "not searchable",
        disabled: m.searchable.length === 0,
      },
    });
    search.addEventListener("input", () => {
      q.search = search.value;
    });
    const fields = h("input", {
      value: q.fields,
      attrs: { "aria-label": "Fields", placeholder: "all columns (a,b,c)" },
    });
    fields.addEventListener("input", () => {
      q.fields = fields.value;
    });
    const sort = h(
      "select",
      { attrs: { "aria-label": "Sort" } },
      h("option", { attrs: { value: "" } }, "_id (default)"),
      m.sortable.filter((c) => c !== "_id").map((c) => h("option", { attrs: { value: c, selected: c === q.sort } }, c)),
    );
    sort.addEventListener("change", () => {
      q.sort = sort.value;
    });
    const order = h(
      "select",
      { attrs: { "aria-label": "Order" } },
      ["asc", "desc"].map((o) => h("option", { attrs: { value: o, selected: o === q.order } }, o)),
    );
    order.addEventListener("change", () => {
      q.order = order.value as "asc" | "desc";
    });
    const limit = h("input", {
      value: String(q.limit),
      attrs: { type: "number", min: 1, max: 1000, "aria-label": "Limit" },
    });
    limit.addEventListener("input", () => {
      q.limit = Number(limit.value) || 50;
    });
    const aggFn = h(
      "select",
      { attrs: { "aria-label": "Aggregate" } },
      h("option", { attrs: { value: "" } }, "count only"),
      ["_countDistinct", "_sum", "_min", "_max"].map((f) => h("option", { attrs: { value: f } }, f.slice(1))),
    );
    const aggColumn = h(
      "select",
      { attrs: { "aria-label": "Aggregate column" } },
      Object.keys(m.columns).map((c) => h("option", { attrs: { value: c } }, c)),
    );
    replace(
      form,
      h(
        "div",
        { class: "row" },
        h("label", null, "Table ", tableSelect),
        h("span", { class: "muted" }, `${fmt(m.rowCount)} rows`),
      ),
      h("div", null, filterRows),
      h(
        "div",
        { class: "row" },
        h(
          "button",
          {
            class: "secondary",
            attrs: { type: "button", "data-testid": "add-filter", disabled: filterColumns.length === 0 },
            on: {
              click: () => {
                q.filters.push({ column: filterColumns[0], op: ops[filterColumns[0]][0], value: "" });
                drawForm();
              },
            },
          },
          "Add filter",
        ),
        h("label", null, "_search ", search),
        h("label", null, "_fields ", fields),
      ),
      h(
        "div",
        { class: "row" },
        h("label", null, "_sort ", sort),
        h("label", null, "_order ", order),
        h("label", null, "_limit ", limit),
        h("button", { attrs: { type: "button", "data-testid": "run" }, on: { click: () => void run(true) } }, "Run"),
        h("label", null, "Aggregate ", aggFn, " of ", aggColumn),
        h(
          "button",
          {
            class: "secondary",
            attrs: { type: "button", "data-testid": "aggregate" },
            on: { click: () => void aggregate(aggFn.value, aggColumn.value) },
          },
          "Count / aggregate",
        ),
      ),
    );
  };

  const aggBox = h("div", { attrs: { "data-testid": "aggregate-result" } });
  const aggregate = async (fn: string, column: string) => {
    const url = aggregateUrl(q, fn, column);
    try {
      const answer = await api("GET", url, undefined, { signal });
      replace(aggBox, callLine(url), h("pre", null, JSON.stringify(answer, null, 2)));
    } catch (err) {
      replace(aggBox, callLine(url), errorLine(err));
    }
  };

  const run = async (fromStart: boolean) => {
    if (fromStart) q.cursor = "";
    const url = listUrl(q);
    replace(out, callLine(url), h("p", { class: "muted" }, "loading…"));
    try {
      const [page, count] = await Promise.all([
        api<{ rows: Record<string, unknown>[]; next_cursor: string | null }>("GET", url, undefined, { signal }),
        api<{ count: number }>("GET", countUrl(q), undefined, { signal }),
      ]);
      const columns = page.rows.length ? Object.keys(page.rows[0]) : Object.keys(meta().columns);
      replace(
        out,
        callLine(url),
        h(
          "p",
          null,
          h("span", { attrs: { "data-testid": "count" } }, `${fmt(count.count)} matching rows`),
          `, ${page.rows.length} on this page`,
        ),
        table(columns, page.rows, (row, c) => cellText(row[c]), { attrs: { "data-testid": "rows" } }),
        page.next_cursor
          ? h(
              "button",
              {
                class: "secondary",
                attrs: { type: "button", "data-testid": "next-page" },
                on: {
                  click: () => {
                    q.cursor = page.next_cursor ?? "";
                    void run(false);
                  },
                },
              },
              "Next page",
            )
          : h("p", { class: "muted" }, "last page"),
      );
    } catch (err) {
      replace(out, callLine(url), errorLine(err));
    }
  };

  drawForm();
  replace(
    root,
    h(
      "h1",
      null,
      h("a", { attrs: { href: "#/subgraphs" } }, "Subgraphs"),
      ` / ${name} `,
      h("span", { class: "muted" }, `v${detail.version} · ${detail.schemaHash.slice(0, 16)}`),
    ),
    h(
      "div",
      { class: "row" },
      progressBox,
      h(
        "button",
        {
          class: "secondary",
          attrs: { type: "button", "data-testid": "reindex" },
          on: { click: () => void reindex() },
        },
        "Reindex",
      ),
    ),
    form,
    aggBox,
    out,
  );
}

function filterRow(f: FilterTerm, ops: Record<string, string[]>, m: TableInfo, remove: () => void): HTMLElement {
  const columns = Object.keys(ops);
  const column = h(
    "select",
    { attrs: { "aria-label": "Filter column" } },
    columns.map((c) => h("option", { attrs: { value: c, selected: c === f.column } }, c)),
  );
  const op = h("select", { attrs: { "aria-label": "Filter operator" } });
  const fillOps = () => {
    replace(
      op,
      (ops[f.column] ?? []).map((o) => h("option", { attrs: { value: o, selected: o === f.op } }, o)),
    );
    f.op = op.value;
  };
  fillOps();
  const value = h("input", {
    value: f.value,
    attrs: { "aria-label": "Filter value", placeholder: m.columns[f.column]?.type },
  });
  column.addEventListener("change", () => {
    f.column = column.value;
    fillOps();
    value.placeholder = m.columns[f.column]?.type ?? "";
  });
  op.addEventListener("change", () => {
    f.op = op.value;
  });
  value.addEventListener("input", () => {
    f.value = value.value;
  });
  return h(
    "div",
    { class: "row", attrs: { "data-testid": "filter" } },
    column,
    op,
    value,
    h("button", { class: "link", attrs: { type: "button" }, on: { click: remove } }, "remove"),
  );
}
