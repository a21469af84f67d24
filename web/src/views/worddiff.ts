// Word-level differences between two texts: the longest common
// subsequence of their words, the rest marked as removed or added.

export type Piece = { kind: "same" | "removed" | "added"; text: string };

/** maxWords bounds the table the comparison fills: longer texts are shown
 * whole, as removed then added. */
const maxWords = 2000;

export function wordDiff(before: string, after: string): Piece[] {
  const a = before.split(/(\s+)/).filter((w) => w !== "");
  const b = after.split(/(\s+)/).filter((w) => w !== "");
  if (a.length * b.length > maxWords * maxWords) {
    return [{ kind: "removed", text: before }, { kind: "added", text: after }].filter((p) => p.text !== "") as Piece[];
  }
  // lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: Piece[] = [];
  const push = (kind: Piece["kind"], text: string): void => {
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += text;
    else out.push({ kind, text });
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      push("same", a[i]!);
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      push("removed", a[i++]!);
    } else {
      push("added", b[j++]!);
    }
  }
  return out;
}
