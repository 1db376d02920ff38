/**
 * Validators for Hiro's published JSON schemas (the `*.schema.json` files shipped in
 * @stacks/stacks-blockchain-api-types), loaded with ajv as they are, with one repair: those files
 * compose objects with `allOf` while each part says `additionalProperties: false`, which no object
 * can satisfy under JSON Schema (each part rejects the other parts' fields). So the parts of an
 * `allOf` lose `additionalProperties: false` and the composed schema gets
 * `unevaluatedProperties: false` instead (draft 2019-09): unknown fields are still refused.
 * Likewise a name a schema both requires and forbids (not among its properties, no others allowed:
 * `txs` of NakamotoBlock, `stx_transfers` of AddressTransaction, left from older versions of the
 * API) is no longer required.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { Ajv2019, type ValidateFunction } from "ajv/dist/2019.js";

const require = createRequire(import.meta.url);
const ROOT = path.dirname(require.resolve("@stacks/stacks-blockchain-api-types/package.json"));
const BASE = "file:///hiro/";

type Schema = Record<string, unknown>;

function listSchemas(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSchemas(full));
    else if (entry.name.endsWith(".schema.json")) out.push(full);
  }
  return out;
}

/** Every object under `node` (depth first), the node included. */
function* objects(node: unknown): Generator<Schema> {
  if (Array.isArray(node)) for (const n of node) yield* objects(n);
  else if (node && typeof node === "object") {
    yield node as Schema;
    for (const v of Object.values(node)) yield* objects(v);
  }
}

function loadAll(): Map<string, Schema> {
  const schemas = new Map<string, Schema>();
  for (const file of [...listSchemas(path.join(ROOT, "entities")), ...listSchemas(path.join(ROOT, "api"))]) {
    const id = BASE + path.relative(ROOT, file).split(path.sep).join("/");
    const schema = JSON.parse(fs.readFileSync(file, "utf8")) as Schema;
    delete schema.$schema;
    schema.$id = id;
    schemas.set(id, schema);
  }
  for (const schema of schemas.values()) {
    for (const o of objects(schema)) {
      if (o.additionalProperties !== false || !Array.isArray(o.required) || !o.properties) continue;
      const props = o.properties as Schema;
      o.required = (o.required as string[]).filter((name) => Object.hasOwn(props, name));
    }
  }
  // Parts of an allOf: inline ones and the files they reference.
  const partFiles = new Set<string>();
  for (const [id, schema] of schemas) {
    for (const o of objects(schema)) {
      if (!Array.isArray(o.allOf)) continue;
      for (const part of o.allOf as Schema[]) {
        if (typeof part.$ref === "string") partFiles.add(new URL(part.$ref, id).href);
        else delete part.additionalProperties;
      }
      if (o !== schema || !partFiles.has(id)) o.unevaluatedProperties = false;
    }
  }
  for (const id of partFiles) {
    const s = schemas.get(id);
    if (!s) continue;
    delete s.additionalProperties;
    delete s.unevaluatedProperties;
  }
  return schemas;
}

let ajv: Ajv2019 | null = null;

/**
 * A validator for one schema file, named by its path in the package (e.g.
 * `entities/transactions/transaction.schema.json`).
 */
export function hiroValidator(file: string): ValidateFunction {
  if (ajv === null) {
    ajv = new Ajv2019({ strict: false, allErrors: true });
    for (const schema of loadAll().values()) ajv.addSchema(schema);
  }
  const v = ajv.getSchema(BASE + file);
  if (!v) throw new Error(`no Hiro schema ${file}`);
  return v;
}

/** Throws with ajv's errors when `value` does not validate against `file`. */
export function expectHiroShape(file: string, value: unknown): void {
  const v = hiroValidator(file);
  if (!v(value)) {
    throw new Error(
      `${file}: ${JSON.stringify(v.errors?.slice(0, 5), null, 1)}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`,
    );
  }
}
