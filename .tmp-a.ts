import { readFileSync } from "node:fs";
import { modelSpec, generateSubgraph } from "./generator/generate.js";
const r = modelSpec({ file: "spec.yaml", text: readFileSync(`test/golden/all-operations/spec.yaml`, "utf8") });
if (!r.ok) throw new Error();
const files = await generateSubgraph(r.model);
console.log(files.get("name-market/routes.ts"));
console.log(files.get("name-market/migration.sql"));
