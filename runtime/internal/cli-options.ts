/** Parsers of command-line option values shared by the CLI's commands (commander). */
import { InvalidArgumentError } from "commander";

/** A whole number within [min, max] (digits only: no sign, exponent or fraction). */
export const wholeNumber = (min: number, max: number) => (v: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max)
    throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
  return n;
};
