import { readFileSync, readdirSync, existsSync } from "node:fs";
import { modelSpec } from "./generator/generate.js";
import { formatSpecError } from "./generator/spec-error.js";
for (const d of readdirSync("test/golden")) {
  const r = modelSpec({ file: "spec.yaml", text: readFileSync(`test/golden/${d}/spec.yaml`, "utf8") });
  console.log("== " + d);
  if (!r.ok) r.errors.forEach((e) => console.log(formatSpecError(e)));
  else console.log("ok");
}
