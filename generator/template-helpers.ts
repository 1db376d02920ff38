/**
 * The private Handlebars instance for text artifacts (STYLE.md "Templates": strict, noEscape,
 * every helper in this one file, identifiers quoted through a helper). Templates live in
 * templates/<artifact>.<ext>.hbs and only loop and print; logic belongs in the view model.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import { sqlIdent } from "./naming.js";
import { TEMPLATES_DIR } from "./repo-paths.js";

const handlebars = Handlebars.create();

handlebars.registerHelper("ident", (name: unknown) => {
  if (typeof name !== "string") throw new Error(`ident helper needs a string, got ${typeof name}`);
  return sqlIdent(name);
});

const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** Renders templates/<name> with `view`; output always uses LF and ends with one newline. */
export function renderTemplate(name: string, view: object): string {
  let template = compiled.get(name);
  if (template === undefined) {
    const text = readFileSync(join(TEMPLATES_DIR, name), "utf8").replace(/\r\n/g, "\n");
    template = handlebars.compile(text, { strict: true, noEscape: true });
    compiled.set(name, template);
  }
  return `${template(view)
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}
