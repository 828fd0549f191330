// Spans of a document's text, as the review view highlights them: polgraph gives them in bytes of the
// UTF-8 text (as Go indexes strings), the page indexes strings in UTF-16 code units, and proposals read
// from one sentence share its span, so the text is cut at every span's ends into pieces that each know
// which spans cover them.

/**
 * A function from byte offsets in the UTF-8 encoding of text to indices of text itself. An offset inside a
 * character (which no span of polgraph's has) falls back to the character's start; offsets outside the
 * text are clamped to it.
 */
export function byteIndexer(text: string): (offset: number) => number {
  const bytes: number[] = [];
  const units: number[] = [];
  let b = 0;
  let u = 0;
  for (const ch of text) {
    bytes.push(b);
    units.push(u);
    const cp = ch.codePointAt(0)!;
    b += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    u += ch.length;
  }
  bytes.push(b);
  units.push(u);
  return (offset) => {
    if (!(offset > 0)) return 0;
    if (offset >= b) return u;
    // The last character starting at or before offset.
    let lo = 0;
    let hi = bytes.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (bytes[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return units[lo];
  };
}

/** A span of the text, in indices of the string, and what it stands for. */
export interface Span {
  id: string;
  start: number;
  end: number;
}

/** A piece of the text and the ids of the spans that cover all of it (none: plain text). */
export interface Piece {
  text: string;
  start: number;
  ids: string[];
}

/**
 * The text cut at the ends of every span (each clamped to the text; empty ones dropped), in order: joined,
 * the pieces' texts are the text.
 */
export function pieces(text: string, spans: Span[]): Piece[] {
  const clamp = (n: number) => Math.min(Math.max(0, n), text.length);
  const ok = spans
    .map((s) => ({ id: s.id, start: clamp(s.start), end: clamp(s.end) }))
    .filter((s) => s.end > s.start);
  const cuts = [...new Set([0, text.length, ...ok.flatMap((s) => [s.start, s.end])])].sort((a, b) => a - b);
  const out: Piece[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const a = cuts[i];
    const b = cuts[i + 1];
    out.push({ text: text.slice(a, b), start: a, ids: ok.filter((s) => s.start <= a && s.end >= b).map((s) => s.id) });
  }
  return out;
}
