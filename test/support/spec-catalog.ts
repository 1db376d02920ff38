/**
 * What specs/ holds, read here with the yaml package (not through the generator), so tests that
 * enumerate subgraphs expect exactly the specs present: the four built-ins the product ships, plus
 * any spec a user adds before `make generate`. Tests that are about one built-in name it instead.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { REPO_ROOT, SPECS_DIR } from "../../generator/repo-paths.js";

/** The subgraphs the product ships in specs/. */
export const BUILT_IN_SUBGRAPHS = ["asset-holdings", "bns-names", "contract-deployments", "sbtc-flows"];

export interface SpecSummary {
  /** Repository-relative path, e.g. `specs/bns-names.yaml`. */
  file: string;
  name: string;
  /** PostgreSQL schema: `sg_` + the name with `-` → `_` (DESIGN.md §2 "Storage"). */
  schema: string;
  tables: string[];
}

/** The name, schema and tables of one spec file. */
export function readSpecSummary(path: string): SpecSummary {
  const spec = parse(readFileSync(path, "utf8")) as { name: string; tables: Record<string, unknown> };
  return {
    file: relative(REPO_ROOT, path).split("\\").join("/"),
    name: spec.name,
    schema: `sg_${spec.name.replace(/-/g, "_")}`,
    tables: Object.keys(spec.tables),
  };
}

/** Every spec in specs/ (`*.yaml`, `*.yml`), sorted by subgraph name. */
export function specsInRepo(): SpecSummary[] {
  return readdirSync(SPECS_DIR)
    .filter((file) => file.endsWith(".yaml") || file.endsWith(".yml"))
    .map((file) => readSpecSummary(join(SPECS_DIR, file)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
