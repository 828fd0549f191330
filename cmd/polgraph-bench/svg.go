package main

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"
)

// The chart: one panel per question, latency against graph size, both on log scales; p50 solid, p99
// dashed; one colour per system; one client.

var chartPanels = []struct {
	title, family string
	systems       []string
}{
	{"FindPaths k=1, depth 4", pathsFamily(variant{1, 4}), []string{sysPolgraph, sysPolgraphMem, sysShortest, sysBFS, sysPostgres, sysFloor}},
	{"FindPaths k=5, depth 6", pathsFamily(variant{5, 6}), []string{sysPolgraph, sysPolgraphMem, sysShortest, sysPostgres, sysFloor}},
	{"Neighbourhood depth 2 (25 per node, 100 nodes)", nbhdFamily(2), []string{sysPolgraph, sysPolgraphMem, sysRecurse, sysPostgres, sysFloor}},
	{"SearchEntities with a typo", searchFamily, []string{sysPolgraph, sysPolgraphMem, sysPostgres}},
}

var systemColours = map[string]string{
	sysPolgraph: "#1f77b4", sysPolgraphMem: "#17becf", sysShortest: "#d62728", sysBFS: "#ff7f0e", sysRecurse: "#9467bd", sysFloor: "#2ca02c", sysPostgres: "#8c564b",
}

const (
	panelW, panelH = 450, 300
	marginL        = 60
	marginR        = 20
	marginT        = 40
	marginB        = 50
	cols           = 2
)

type svgWriter struct{ b strings.Builder }

func (w *svgWriter) f(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

func (w *svgWriter) text(x, y float64, anchor, size, s string) {
	w.f(`<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%s">%s</text>`+"\n", x, y, anchor, size, html.EscapeString(s))
}

// svg draws the chart of a report.
func (rep *report) svg() string {
	rows := (len(chartPanels) + cols - 1) / cols
	legendH := 50.0
	width, height := float64(cols*panelW), float64(rows*panelH)+legendH+30
	w := &svgWriter{}
	w.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif">`+"\n", width, height, width, height)
	w.f(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	w.text(width/2, 20, "middle", "15", fmt.Sprintf("polgraph query latency by graph size (1 client; p50 solid, p99 dashed; %s, %s)", rep.Started.UTC().Format("2006-01-02"), "Dgraph "+strings.TrimSuffix(strings.Fields(rep.DgraphVersion + " ?")[0], ",")))
	for i, panel := range chartPanels {
		ox, oy := float64(i%cols*panelW), 30+float64(i/cols*panelH)
		rep.panel(w, ox, oy, panel.title, panel.family, panel.systems)
	}
	// Legend: the systems in two rows, then what the marks mean.
	for i, s := range []string{sysPolgraph, sysPolgraphMem, sysShortest, sysBFS, sysRecurse, sysFloor} {
		x, y := 20+float64(i%3)*230, height-legendH+float64(i/3)*20
		w.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"/>`+"\n", x, y, x+24, y, systemColours[s])
		w.text(x+30, y+4, "start", "12", s)
	}
	x, y := 20+3*230.0, height-legendH
	w.f(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="#444"/>`+"\n", x+12, y)
	w.text(x+24, y+4, "start", "12", "p50")
	w.f(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="white" stroke="#444" stroke-width="1.5"/>`+"\n", x+12, y+20)
	w.text(x+24, y+24, "start", "12", "p99")
	w.f("</svg>\n")
	return w.b.String()
}

func (rep *report) panel(w *svgWriter, ox, oy float64, title, family string, systems []string) {
	x0, y0 := ox+marginL, oy+marginT
	pw, ph := float64(panelW-marginL-marginR), float64(panelH-marginT-marginB)
	w.text(ox+panelW/2, oy+22, "middle", "13", title)
	// Ranges: sizes on x, milliseconds on y, both log10, padded to whole decades.
	var sizes []float64
	for _, s := range rep.Sizes {
		sizes = append(sizes, float64(s.Relations))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range rep.Sizes {
		for _, r := range s.Results {
			if r.Family == family && r.Conc == 1 && slices.Contains(systems, r.System) {
				for _, d := range []time.Duration{r.P50, r.P99} {
					if v := msFloat(d); v > 0 {
						lo, hi = math.Min(lo, v), math.Max(hi, v)
					}
				}
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0.1, 1000
	}
	ylo, yhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if yhi <= ylo {
		yhi = ylo + 1
	}
	xlo, xhi := 3.0, 6.0
	if len(sizes) > 0 {
		xlo, xhi = math.Log10(slices.Min(sizes))-0.3, math.Log10(slices.Max(sizes))+0.3
	}
	px := func(n float64) float64 { return x0 + (math.Log10(n)-xlo)/(xhi-xlo)*pw }
	py := func(v float64) float64 { return y0 + ph - (math.Log10(v)-ylo)/(yhi-ylo)*ph }
	w.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999"/>`+"\n", x0, y0, pw, ph)
	for e := ylo; e <= yhi; e++ {
		y := py(math.Pow(10, e))
		w.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x0, y, x0+pw, y)
		w.text(x0-6, y+4, "end", "11", tickLabel(math.Pow(10, e)))
	}
	w.f(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11" transform="rotate(-90 %.1f %.1f)">ms</text>`+"\n", ox+14, y0+ph/2, ox+14, y0+ph/2)
	for _, s := range rep.Sizes {
		x := px(float64(s.Relations))
		w.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x, y0, x, y0+ph)
		w.text(x, y0+ph+16, "middle", "11", s.Label)
	}
	w.text(x0+pw/2, y0+ph+34, "middle", "11", "relations (log scale)")
	for si, sys := range systems {
		colour := systemColours[sys]
		dx := (float64(si) - float64(len(systems)-1)/2) * 5 // systems side by side, so equal values stay visible
		for _, q := range []struct {
			dash, fill string
			get        func(result) time.Duration
		}{{"", colour, func(r result) time.Duration { return r.P50 }}, {`stroke-dasharray="5,4"`, "white", func(r result) time.Duration { return r.P99 }}} {
			var pts []string
			for _, s := range rep.Sizes {
				for _, r := range s.Results {
					if r.Family == family && r.System == sys && r.Conc == 1 && r.OK > 0 {
						if v := msFloat(q.get(r)); v > 0 {
							x, y := px(float64(s.Relations))+dx, py(v)
							pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
							w.f(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s" stroke="%s" stroke-width="1.5"/>`+"\n", x, y, q.fill, colour)
						}
					}
				}
			}
			if len(pts) > 1 {
				w.f(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2" %s/>`+"\n", strings.Join(pts, " "), colour, q.dash)
			}
		}
	}
}

func msFloat(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func tickLabel(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%gs", v/1000)
	case v >= 1:
		return fmt.Sprintf("%g", v)
	}
	return fmt.Sprintf("%g", v)
}
