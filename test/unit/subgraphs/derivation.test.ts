/** derivationChanged: which built-in upgrades rebuild their rows (runtime/subgraphs/derivation.ts). */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { SPECS_DIR } from "../../../generator/repo-paths.js";
import { derivationChanged } from "../../../runtime/subgraphs/derivation.js";

const current = readFileSync(path.join(SPECS_DIR, "asset-holdings.yaml"), "utf8");
const revision = (version: string, specText: string | null) => ({ version, specText });

/** The spec with `edit` applied to its parsed YAML. */
function edited(edit: (spec: Record<string, Record<string, unknown>>) => void): string {
  const spec = YAML.parse(current);
  edit(spec);
  return YAML.stringify(spec);
}

describe("derivationChanged", () => {
  it("is false when only the version, descriptions, comments or layout changed", () => {
    const reworded = edited((spec) => {
      spec.version = "9.9.9" as never;
      spec.description = "Other words." as never;
      (spec.tables.holdings as { description: string }).description = "Other words.";
    });
    expect(derivationChanged(revision("1.2.0", current), revision("9.9.9", reworded))).toBe(false);
    const commented = `# a comment\n${current.replace("${-event.amount}", "${ -event.amount }")}`;
    expect(derivationChanged(revision("1.2.0", current), revision("1.2.0", commented))).toBe(false);
  });

  it("is true when a source or a handler was added, removed or changed", () => {
    const withoutFees = edited((spec) => {
      delete spec.sources.stxFee;
      delete spec.handlers.stxFee;
    });
    expect(derivationChanged(revision("1.1.0", withoutFees), revision("1.2.0", current))).toBe(true);
    const otherDelta = current.replace("amount: ${-event.amount}", "amount: ${event.amount}");
    expect(otherDelta).not.toBe(current);
    expect(derivationChanged(revision("1.2.0", current), revision("1.2.0", otherDelta))).toBe(true);
    const filtered = edited((spec) => {
      spec.sources.stxFee = { type: "tx_fee", minAmount: "1000" };
    });
    expect(derivationChanged(revision("1.2.0", current), revision("1.2.0", filtered))).toBe(true);
    const later = edited((spec) => {
      spec.startBlock = 100 as never;
    });
    expect(derivationChanged(revision("1.2.0", current), revision("1.2.0", later))).toBe(true);
  });

  it("falls back on the version without a spec text, and counts a stored spec that no longer models as changed", () => {
    expect(derivationChanged(revision("1.1.0", null), revision("1.2.0", current))).toBe(true);
    expect(derivationChanged(revision("1.2.0", null), revision("1.2.0", current))).toBe(false);
    expect(derivationChanged(revision("1.1.0", current), revision("1.1.0", null))).toBe(false);
    expect(derivationChanged(revision("1.1.0", "name: [unclosed"), revision("1.2.0", current))).toBe(true);
  });
});
