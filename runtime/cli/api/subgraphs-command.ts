/**
 * `sluice subgraphs list|get|deploy|reindex|remove|query` (README "CLI") through the SDK.
 * deploy and reindex wait for the backfill to finish (progress on stderr) unless --no-wait.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import type { SluiceClient } from "../../sdk/client.js";
import { createProgress, progressBar } from "../progress.js";
import { type ApiOptions, clientOf, output, printJson, run, UsageError, withApiOptions } from "./common.js";

interface ProgressLike {
  status?: string;
  blocks_done?: number | null;
  blocks_total?: number | null;
  error?: string | null;
}

/** Polls the subgraph until it is no longer backfilling or reindexing; returns the last progress. */
async function waitForReady(client: SluiceClient, name: string, intervalMs = 500): Promise<ProgressLike> {
  const progress = createProgress();
  for (;;) {
    const got = (await client.subgraphs.get(name)) as { progress?: ProgressLike | null };
    const p = got.progress ?? {};
    const done = p.blocks_done ?? 0;
    const total = p.blocks_total ?? 0;
    if (p.status !== "backfilling" && p.status !== "reindexing") {
      progress.done(`${name}: ${p.status ?? "ready"} (${done}/${total} blocks)`);
      return p;
    }
    progress.update(`${name}: ${p.status} ${progressBar(total ? done / total : 0)} ${done}/${total} blocks`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** `col=value` filters (repeatable) → query parameters. */
function parseFilters(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--where takes column=value (or column.op=value); got ${JSON.stringify(pair)}`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerSubgraphsApiCommands(program: Command): void {
  const subgraphs =
    program.commands.find((c) => c.name() === "subgraphs") ??
    program.command("subgraphs").description("work with subgraph specs and the instance's subgraphs");
  subgraphs.description("work with subgraph specs and the instance's subgraphs");

  withApiOptions(subgraphs.command("list").description("the instance's subgraphs")).action((o: ApiOptions) =>
    run(async () => {
      const { subgraphs: list } = await clientOf(o).subgraphs.list();
      output(o, list, {
        columns: ["name", "version", "status", "height", "tables"],
        rows: list.map((s) => ({
          name: s.name,
          version: s.version,
          status: s.progress?.status ?? "ready",
          height: s.tip?.subgraph_height,
          tables: Object.entries(s.tables)
            .map(([t, v]) => `${t}(${(v as { rowCount?: number }).rowCount ?? 0})`)
            .join(" "),
        })),
      });
    }),
  );

  withApiOptions(subgraphs.command("get <name>").description("a subgraph: tables, columns, tip, progress")).action(
    (name: string, o: ApiOptions) => run(async () => printJson(await clientOf(o).subgraphs.get(name))),
  );

  withApiOptions(
    subgraphs
      .command("deploy <file>")
      .description("deploy a spec (YAML or JSON file); waits for its backfill unless --no-wait")
      .option("--replace", "rebuild when the change is breaking")
      .option("--no-wait", "return once the deploy is accepted"),
  ).action((file: string, o: ApiOptions & { replace?: boolean; wait: boolean }) =>
    run(async () => {
      const client = clientOf(o);
      const text = readFileSync(file, "utf8");
      const spec = /\.json$/i.test(file) ? (JSON.parse(text) as Record<string, unknown>) : text;
      const result = await client.subgraphs.deploy(spec, { replace: o.replace });
      const final = o.wait && result.status === "backfilling" ? await waitForReady(client, result.name) : result;
      output(o, { ...result, ...final });
      if (final.status === "failed") process.exitCode = 1;
    }),
  );

  withApiOptions(
    subgraphs
      .command("reindex <name>")
      .description("rebuild a subgraph from stored blocks; waits with progress unless --no-wait")
      .option("--no-wait", "return once the reindex started"),
  ).action((name: string, o: ApiOptions & { wait: boolean }) =>
    run(async () => {
      const client = clientOf(o);
      const started = await client.subgraphs.reindex(name);
      const final = o.wait ? await waitForReady(client, name) : started;
      output(o, { ...started, ...final });
      if (final.status === "failed") process.exitCode = 1;
    }),
  );

  withApiOptions(subgraphs.command("remove <name>").description("remove a deployed subgraph and its tables")).action(
    (name: string, o: ApiOptions) =>
      run(async () => {
        await clientOf(o).subgraphs.remove(name);
        if (o.json) printJson({ removed: name });
        else process.stdout.write(`removed ${name}\n`);
      }),
  );

  withApiOptions(
    subgraphs
      .command("query <name> <table>")
      .description("rows of a table (NDJSON with --json); filters as --where col=value or col.gt=value")
      .option("--where <col=value>", "column filter (repeatable)", collect, [])
      .option("--limit <n>", "rows per page (1-1000)")
      .option("--fields <cols>", "comma-separated columns")
      .option("--all", "follow next_cursor through every page"),
  ).action(
    (
      name: string,
      table: string,
      o: ApiOptions & { where: string[]; limit?: string; fields?: string; all?: boolean },
    ) =>
      run(async () => {
        const client = clientOf(o);
        const query = {
          ...parseFilters(o.where),
          _limit: o.limit === undefined ? undefined : Number(o.limit),
          _fields: o.fields,
        };
        const rows: Record<string, unknown>[] = [];
        if (o.all) for await (const row of client.subgraphs.rowsAll(name, table, query)) rows.push(row);
        else rows.push(...(await client.subgraphs.rows(name, table, query)).rows);
        if (o.json) {
          for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
          return;
        }
        output(o, rows, { columns: rows.length ? Object.keys(rows[0]) : [], rows });
      }),
  );
}
