/** "Did you mean …?" for spec errors (STYLE.md: messages suggest the nearest valid name). */

/** Levenshtein edit distance. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = current;
  }
  return previous[b.length];
}

/** Words from other languages that mean one of ours (e.g. a column type written as `string`). */
const SYNONYMS: Readonly<Record<string, string>> = {
  string: "text",
  varchar: "text",
  integer: "int",
  number: "int",
  numeric: "int",
  bool: "boolean",
  json: "jsonb",
  object: "jsonb",
  address: "principal",
  datetime: "timestamp",
  date: "timestamp",
  unique: "uniqueKeys",
  index: "indexed",
};

/** The candidate closest to `name`, if it is close enough to be a likely typo. */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  const synonym = SYNONYMS[name.toLowerCase()];
  if (synonym !== undefined && candidates.includes(synonym)) return synonym;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const limit = name.length <= 4 ? 1 : Math.max(2, Math.floor(name.length / 3));
  return bestDistance <= limit ? best : undefined;
}

/** ` (did you mean "x"?)` or "". */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const nearest = nearestName(name, candidates);
  return nearest === undefined ? "" : ` (did you mean "${nearest}"?)`;
}
