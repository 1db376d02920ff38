/**
 * ts-morph on an in-memory file system (STYLE.md "Generator"): one throwaway project per
 * emitted file, printed with fixed formatting so output is byte-stable.
 */
import { IndentationText, NewLineKind, Project, QuoteKind, type SourceFile } from "ts-morph";

/** A new in-memory source file named `name`, optionally starting with `text`. */
export function createTsFile(name: string, text = ""): SourceFile {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      quoteKind: QuoteKind.Double,
      newLineKind: NewLineKind.LineFeed,
      useTrailingCommas: true,
    },
  });
  return project.createSourceFile(name, text);
}

/** The formatted text of `file` behind `header`, LF line ends, one trailing newline. */
export function printTsFile(file: SourceFile, header: string): string {
  file.formatText({ indentSize: 2, tabSize: 2, convertTabsToSpaces: true, ensureNewLineAtEndOfFile: true });
  const body = file.getFullText().replace(/\r\n/g, "\n").trim();
  return `${header}${body}\n`;
}
