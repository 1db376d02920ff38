/**
 * A YAML document with source positions (STYLE.md "Generator": spec errors carry line and
 * column). Parses with the `yaml` package and maps spec paths back to key or value positions.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument, type Scalar } from "yaml";
import type { SpecError } from "./spec-error.js";

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
    value: syntaxErrors.length === 0 ? doc.toJS() : undefined,
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
