/**
 * Trait conformance for `trait:` source filters (SPEC.md "Trigger object": `trait` scopes to a
 * token/contract standard). Pure: decides from a deployed contract's interface (the node's
 * `contract_interface` of the deploy) whether it exposes a standard's functions with the right
 * access and argument types. Stacks has no on-chain registry of implemented traits, so
 * conformance is structural, as wallets and explorers decide it.
 */

export type TraitName = "sip-010" | "sip-009" | "sip-013";

type ArgType = "uint" | "principal" | "optional-buff" | "buff";

interface FnRequirement {
  name: string;
  access: "public" | "read_only";
  args: ArgType[];
}

const FT_TRAIT: FnRequirement[] = [
  { name: "transfer", access: "public", args: ["uint", "principal", "principal", "optional-buff"] },
  { name: "get-name", access: "read_only", args: [] },
  { name: "get-symbol", access: "read_only", args: [] },
  { name: "get-decimals", access: "read_only", args: [] },
  { name: "get-balance", access: "read_only", args: ["principal"] },
  { name: "get-total-supply", access: "read_only", args: [] },
  { name: "get-token-uri", access: "read_only", args: [] },
];

const NFT_TRAIT: FnRequirement[] = [
  { name: "get-last-token-id", access: "read_only", args: [] },
  { name: "get-token-uri", access: "read_only", args: ["uint"] },
  { name: "get-owner", access: "read_only", args: ["uint"] },
  { name: "transfer", access: "public", args: ["uint", "principal", "principal"] },
];

const SFT_TRAIT: FnRequirement[] = [
  { name: "get-balance", access: "read_only", args: ["uint", "principal"] },
  { name: "get-overall-balance", access: "read_only", args: ["principal"] },
  { name: "get-total-supply", access: "read_only", args: ["uint"] },
  { name: "get-overall-supply", access: "read_only", args: [] },
  { name: "get-decimals", access: "read_only", args: ["uint"] },
  { name: "get-token-uri", access: "read_only", args: ["uint"] },
  { name: "transfer", access: "public", args: ["uint", "uint", "principal", "principal"] },
  { name: "transfer-memo", access: "public", args: ["uint", "uint", "principal", "principal", "buff"] },
];

const REQUIREMENTS: Record<TraitName, FnRequirement[]> = {
  "sip-010": FT_TRAIT,
  "sip-009": NFT_TRAIT,
  "sip-013": SFT_TRAIT,
};

/**
 * The standard a `trait:` value names: `sip-010` (also `sip010`, `ft`, or any trait id containing
 * `sip-010`/`sip010`, e.g. `SP3FBR….sip-010-trait-ft-standard.sip-010-trait`), `sip-009` (`nft`),
 * `sip-013` (`sft`); null for anything else (such a source matches nothing).
 */
export function parseTraitName(value: string): TraitName | null {
  const v = value.toLowerCase();
  if (v === "ft" || /sip-?010/.test(v)) return "sip-010";
  if (v === "nft" || /sip-?009/.test(v)) return "sip-009";
  if (v === "sft" || /sip-?013/.test(v)) return "sip-013";
  return null;
}

/** True when `contractInterface` exposes every function the trait requires. */
export function conformsToTrait(contractInterface: unknown, trait: TraitName): boolean {
  const functions = functionsOf(contractInterface);
  if (functions === null) return false;
  return REQUIREMENTS[trait].every((req) => {
    const fn = functions.get(req.name);
    return fn !== undefined && fn.access === req.access && argsMatch(fn.args, req.args);
  });
}

interface AbiFunction {
  access: string;
  args: unknown[];
}

function functionsOf(contractInterface: unknown): Map<string, AbiFunction> | null {
  if (contractInterface === null || typeof contractInterface !== "object") return null;
  const list = (contractInterface as { functions?: unknown }).functions;
  if (!Array.isArray(list)) return null;
  const out = new Map<string, AbiFunction>();
  for (const fn of list) {
    if (fn === null || typeof fn !== "object") continue;
    const { name, access, args } = fn as { name?: unknown; access?: unknown; args?: unknown };
    if (typeof name !== "string" || typeof access !== "string") continue;
    out.set(name, { access, args: Array.isArray(args) ? args : [] });
  }
  return out;
}

function argsMatch(args: unknown[], want: ArgType[]): boolean {
  if (args.length !== want.length) return false;
  return want.every((type, i) => argTypeIs((args[i] as { type?: unknown } | null)?.type, type));
}

function argTypeIs(type: unknown, want: ArgType): boolean {
  switch (want) {
    case "uint":
      return type === "uint128";
    case "principal":
      return type === "principal" || type === "trait_reference";
    case "buff":
      return isObject(type) && isObject(type.buffer);
    case "optional-buff":
      return isObject(type) && isObject(type.optional) && isObject(type.optional.buffer);
  }
}

function isObject(v: unknown): v is Record<string, Record<string, unknown>> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
