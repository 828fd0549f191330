// Time in the view: a histogram of when the relations drawn held, a range of years that keeps only those
// that held at some moment of it (played year by year), and a comparison of two years (what held in the
// first only, in the second only, in both). It works on what is drawn; the as-of filter asks the service.
import type cytoscape from "cytoscape";

/** The years a relation held: [from, to], either end open (±Infinity); null when it has no date at all. */
export function yearsOf(d: { validFrom?: string; validTo?: string; date?: string; undated?: boolean }): [number, number] | null {
  const y = (s?: string) => (s && /^\d{4}/.test(s) ? Number(s.slice(0, 4)) : undefined);
  const date = y(d.date);
  if (date !== undefined) return [date, date];
  const from = y(d.validFrom);
  const to = y(d.validTo);
  if (from === undefined && to === undefined) return null;
  return [from ?? -Infinity, to ?? Infinity];
}

const overlaps = (span: [number, number], a: number, b: number) => span[0] <= b && span[1] >= a;

/** The years the histogram covers, and how many relations held in each. */
export interface Histogram {
  first: number;
  last: number;
  counts: number[];
  undated: number;
}

export function histogram(spans: ([number, number] | null)[], thisYear: number): Histogram | null {
  const dated = spans.filter((s): s is [number, number] => s !== null);
  const ends = dated.flatMap((s) => s.filter(Number.isFinite));
  if (!ends.length) return null;
  const first = Math.min(...ends);
  const last = Math.max(thisYear, ...ends);
  const counts = Array.from({ length: last - first + 1 }, (_, i) => dated.filter((s) => overlaps(s, first + i, first + i)).length);
  return { first, last, counts, undated: spans.length - dated.length };
}

/** What the time controls ask: a range of years kept, or two years compared; null for neither. */
export interface TimeChoice {
  range: [number, number] | null;
  compare: [number, number] | null;
}

/**
 * Marks the edges (and the nodes left with none) as the choice says: out of the range or in neither year
 * compared, hidden ("outtime"); held in the first year compared only, "before"; in the second only,
 * "after". Undated relations stay drawn: nothing says when they held. keep names the nodes that stay
 * whatever happens to their edges (those the view opened). Returns how many relations are kept.
 */
export function applyTime(cy: cytoscape.Core, choice: TimeChoice, keep: Set<string>): number {
  let kept = 0;
  cy.batch(() => {
    const edges = cy.edges().not(".more-edge, .bundle");
    edges.removeClass("outtime before after");
    cy.nodes().removeClass("outtime");
    if (!choice.range && !choice.compare) {
      kept = edges.length;
      return;
    }
    edges.forEach((e) => {
      const span = yearsOf(e.data());
      if (!span) {
        kept++;
        return;
      }
      if (choice.compare) {
        const [a, b] = choice.compare;
        const inA = overlaps(span, a, a);
        const inB = overlaps(span, b, b);
        if (!inA && !inB) e.addClass("outtime");
        else {
          kept++;
          if (inA && !inB) e.addClass("before");
          else if (inB && !inA) e.addClass("after");
        }
        return;
      }
      const [a, b] = choice.range!;
      if (overlaps(span, a, b)) kept++;
      else e.addClass("outtime");
    });
    cy.nodes()
      .not(".more")
      .forEach((n) => {
        if (keep.has(n.id())) return;
        const edgesOf = n.connectedEdges().not(".more-edge, .bundle");
        if (edgesOf.nonempty() && edgesOf.every((e) => (e as cytoscape.EdgeSingular).hasClass("outtime"))) n.addClass("outtime");
      });
  });
  return kept;
}

/** Draws the histogram as bars, the years in range (or compared) marked. */
export function drawHistogram(svg: SVGSVGElement, h: Histogram, choice: TimeChoice): void {
  const ns = "http://www.w3.org/2000/svg";
  const n = h.counts.length;
  const max = Math.max(1, ...h.counts);
  const W = 100 * n;
  svg.setAttribute("viewBox", `0 0 ${W} 100`);
  svg.setAttribute("preserveAspectRatio", "none");
  const bars: SVGElement[] = [];
  h.counts.forEach((c, i) => {
    const year = h.first + i;
    const r = document.createElementNS(ns, "rect");
    const height = (c / max) * 96;
    r.setAttribute("x", String(i * 100 + 8));
    r.setAttribute("y", String(100 - height));
    r.setAttribute("width", "84");
    r.setAttribute("height", String(Math.max(height, c ? 2 : 0)));
    const on = choice.compare ? year === choice.compare[0] || year === choice.compare[1] : !choice.range || (year >= choice.range[0] && year <= choice.range[1]);
    r.setAttribute("fill", on ? "#2563eb" : "#cbd5e1");
    r.dataset.year = String(year);
    const t = document.createElementNS(ns, "title");
    t.textContent = `${year}: ${c} relation${c === 1 ? "" : "s"} held`;
    r.append(t);
    bars.push(r);
  });
  svg.replaceChildren(...bars);
}
