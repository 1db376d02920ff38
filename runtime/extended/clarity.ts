/**
 * Clarity values as Hiro renders them: `{ hex, repr }`, repr in Clarity's own syntax (`u1`,
 * `(ok true)`, `'SP….name`). Pure; an undecodable value keeps its hex and an empty repr.
 */
import { type ClarityValue, cvToString, hexToCV, serializeCV } from "@stacks/transactions";

export interface HexRepr {
  hex: string;
  repr: string;
}

export function fromHex(hex: string): HexRepr {
  try {
    return { hex, repr: cvToString(hexToCV(hex)) };
  } catch {
    return { hex, repr: "" };
  }
}

export function fromValue(cv: ClarityValue): HexRepr {
  const hex = serializeCV(cv);
  return { hex: hex.startsWith("0x") ? hex : `0x${hex}`, repr: cvToString(cv) };
}
