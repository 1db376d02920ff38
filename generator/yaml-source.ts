/**
 * A YAML document with source positions (STYLE.md "Generator": spec errors carry line and
 * column). Parses with the `yaml` package and maps spec paths back to key or value positions.
 * Aliases may expand to at most MAX_ALIAS_EXPANSIONS nodes, so a small document cannot blow up
 * into a huge value (a "billion laughs" alias bomb); past that the document is a spec error.
 */
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type Scalar,
  visit,
} from "yaml";
import type { SpecError } from "./spec-error.js";

/** The `yaml` package's maxAliasCount: alias resolutions times the aliases each one contains. */
export const MAX_ALIAS_EXPANSIONS = 100;

export type SpecPath = readonly (string | number)[];

export interface Position {
  line: number;
  col: number;
}

export interface YamlSource {
  readonly file: string;
  /** The plain JS value of the document (undefined when it could not be parsed). */
  readonly value: unknown;
  /** YAML syntax errors, already located. */
  readonly syntaxErrors: readonly SpecError[];
  /** Where the key (or the value) at `path` starts; falls back to the nearest ancestor. */
  locate(path: SpecPath, target?: "key" | "value"): Position;
  /**
   * Where character `offset` of the string value at `path` is, for errors inside expressions.
   * Exact for single-line plain and quoted scalars; otherwise the start of the value.
   */
  locateInString(path: SpecPath, offset: number): Position;
}

export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, col };
  };
  const syntaxErrors: SpecError[] = doc.errors.map((error) => ({
    file,
    ...at(error.pos[0]),
    path: "",
    message: `invalid YAML: ${firstLine(error.message)}`,
  }));
  let value: unknown;
  if (syntaxErrors.length === 0) {
    const converted = toPlainValue(doc);
    if (converted.ok) value = converted.value;
    else syntaxErrors.push({ file, ...at(firstAliasOffset(doc)), path: "", message: converted.message });
  }
  const locateNode = (path: SpecPath, target: "key" | "value"): { node: Node | null; offset: number } => {
    let node: unknown = doc.contents;
    let offset = nodeStart(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find(
          (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment),
        );
        if (pair === undefined) return { node: null, offset };
        if (last && target === "key") return { node: pair.key as Node, offset: nodeStart(pair.key) ?? offset };
        node = pair.value;
        offset = nodeStart(pair.value) ?? nodeStart(pair.key) ?? offset;
      } else if (isSeq(node) && typeof segment === "number" && segment < node.items.length) {
        node = node.items[segment];
        offset = nodeStart(node) ?? offset;
      } else {
        return { node: null, offset };
      }
    }
    return { node: (node as Node) ?? null, offset };
  };
  return {
    file,
    value,
    syntaxErrors,
    locate: (path, target = "value") => at(locateNode(path, target).offset),
    locateInString(path, offset) {
      const { node, offset: start } = locateNode(path, "value");
      if (!isScalar(node)) return at(start);
      const scalar = node as Scalar;
      const value = String(scalar.value);
      const singleLine =
        !value.includes("\n") && (scalar.source === undefined || !String(scalar.source).includes("\n"));
      if (scalar.type === "PLAIN" && singleLine) return at(start + offset);
      if ((scalar.type === "QUOTE_SINGLE" || scalar.type === "QUOTE_DOUBLE") && singleLine) {
        const raw = text.slice(start + 1, (scalar.range?.[1] ?? start + 1) - 1);
        if (raw === value) return at(start + 1 + offset);
      }
      return at(start);
    },
  };
}

/** The document's plain value; an alias that cannot be resolved within the limit is a message. */
function toPlainValue(doc: Document): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSIONS }) };
  } catch (error) {
    // The package reports alias problems (too many expansions, an alias before its anchor) as ReferenceError.
    if (!(error instanceof ReferenceError)) throw error;
    const message = /excessive alias count/i.test(error.message)
      ? `invalid YAML: aliases expand to more than ${MAX_ALIAS_EXPANSIONS} nodes; write the values out instead`
      : `invalid YAML: ${firstLine(error.message)}`;
    return { ok: false, message };
  }
}

function firstAliasOffset(doc: Document): number {
  let offset = 0;
  visit(doc, {
    Alias(_key, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

function nodeStart(node: unknown): number | undefined {
  if (node !== null && typeof node === "object" && "range" in node) {
    const range = (node as { range?: [number, number, number] | null }).range;
    return range?.[0];
  }
  return undefined;
}

function firstLine(message: string): string {
  return message.split("\n")[0].trim();
}
