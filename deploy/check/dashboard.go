package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
)

// Metric is a metric polgraph exports, by name and type.
type Metric struct {
	Name string
	Type string // counter, gauge or histogram
}

// PolgraphMetrics are the metrics the dashboard may ask for: polgraph's own (internal/observe) and the
// Go client's standard ones it uses.
var PolgraphMetrics = []Metric{
	{"polgraph_rpc_duration_seconds", "histogram"},
	{"polgraph_dgraph_call_duration_seconds", "histogram"},
	{"polgraph_graph_version_lag", "gauge"},
	{"polgraph_graph_fill_seconds", "gauge"},
	{"polgraph_graph_version", "gauge"},
	{"polgraph_load_relations_total", "counter"},
	{"polgraph_load_progress_ratio", "gauge"},
	{"polgraph_refusals_total", "counter"},
	{"polgraph_database_up", "gauge"},
	{"go_goroutines", "gauge"},
	{"go_memstats_heap_inuse_bytes", "gauge"},
	{"process_resident_memory_bytes", "gauge"},
}

// seriesNames are the names of the series the metrics make: a histogram's _bucket, _count and _sum.
func seriesNames(metrics []Metric) map[string]string {
	out := map[string]string{}
	for _, m := range metrics {
		if m.Type == "histogram" {
			for _, s := range []string{"_bucket", "_count", "_sum"} {
				out[m.Name+s] = m.Name
			}
			continue
		}
		out[m.Name] = m.Name
	}
	return out
}

// dashboard is the part of a Grafana dashboard's JSON model CheckDashboard reads.
type dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      json.RawMessage `json:"query"`
			Datasource *datasource     `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID         int         `json:"id"`
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Datasource *datasource `json:"datasource"`
	GridPos    *struct {
		H, W, X, Y int
	} `json:"gridPos"`
	Targets []struct {
		RefID      string      `json:"refId"`
		Expr       string      `json:"expr"`
		Datasource *datasource `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a collapsed row's
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// grafanaVariables are Grafana's built-in variables that may stand where PromQL wants a duration.
var grafanaVariables = strings.NewReplacer("$__rate_interval", "5m", "${__rate_interval}", "5m",
	"$__interval", "1m", "${__interval}", "1m", "$__range", "1h", "${__range}", "1h")

// CheckDashboard returns every way a Grafana dashboard's JSON model is not a working dashboard of
// polgraph's metrics:
//   - not JSON, or a field of the wrong type; no uid, title or schemaVersion;
//   - no variable of type datasource for Prometheus, or a panel (or a target, or a query variable)
//     whose datasource is not that variable;
//   - panels without a title or a place (gridPos), or with an id another panel has;
//   - a target whose expr does not parse as PromQL (Grafana's $__rate_interval and the like read as
//     durations), or that selects a series that is not one of metrics', or selects one by something
//     other than its name;
//   - one of metrics that no panel shows.
func CheckDashboard(b []byte, metrics []Metric) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var d dashboard
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&d); err != nil {
		return []error{fmt.Errorf("not a dashboard's JSON: %w", err)}
	}
	if d.UID == "" || d.Title == "" || d.SchemaVersion == 0 {
		bad("uid %q, title %q, schemaVersion %d: want all three", d.UID, d.Title, d.SchemaVersion)
	}
	dsVar := ""
	for _, v := range d.Templating.List {
		var q string
		_ = json.Unmarshal(v.Query, &q)
		if v.Type == "datasource" && q == "prometheus" {
			dsVar = "${" + v.Name + "}"
		}
	}
	if dsVar == "" {
		bad("no templating variable of type datasource for prometheus")
	}
	isVar := func(ds *datasource) bool { return ds != nil && ds.Type == "prometheus" && ds.UID == dsVar }

	series := seriesNames(metrics)
	shown := map[string]bool{}
	p := parser.NewParser(parser.Options{})
	checkExpr := func(where, expr string) {
		e, err := p.ParseExpr(grafanaVariables.Replace(expr))
		if err != nil {
			bad("%s: %q is not PromQL: %v", where, expr, err)
			return
		}
		parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
			vs, ok := n.(*parser.VectorSelector)
			if !ok {
				return nil
			}
			if vs.Name == "" {
				bad("%s: %q selects series by labels only, not by a metric's name", where, expr)
				return nil
			}
			m, ok := series[vs.Name]
			if !ok {
				bad("%s: %q reads %s, which is not one of polgraph's metrics", where, expr, vs.Name)
				return nil
			}
			shown[m] = true
			return nil
		})
	}

	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		if !isVar(v.Datasource) {
			bad("variable %s: datasource %+v, want the datasource variable %s", v.Name, v.Datasource, dsVar)
		}
		var q struct{ Query string }
		if err := json.Unmarshal(v.Query, &q); err != nil {
			_ = json.Unmarshal(v.Query, &q.Query)
		}
		m := regexp.MustCompile(`^label_values\((.+),\s*\w+\)$`).FindStringSubmatch(q.Query)
		if m == nil {
			bad("variable %s: query %q, want label_values(SELECTOR, LABEL)", v.Name, q.Query)
			continue
		}
		checkExpr("variable "+v.Name, m[1])
	}

	ids := map[int]bool{}
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, pn := range ps {
			where := fmt.Sprintf("panel %d %q", pn.ID, pn.Title)
			if ids[pn.ID] {
				bad("%s: another panel has id %d", where, pn.ID)
			}
			ids[pn.ID] = true
			if pn.Title == "" || pn.GridPos == nil || pn.GridPos.W == 0 || pn.GridPos.H == 0 {
				bad("%s: want a title and a gridPos", where)
			}
			walk(pn.Panels)
			if pn.Type == "row" {
				continue
			}
			if !isVar(pn.Datasource) {
				bad("%s: datasource %+v, want the datasource variable %s", where, pn.Datasource, dsVar)
			}
			if len(pn.Targets) == 0 {
				bad("%s: no query", where)
			}
			refs := map[string]bool{}
			for _, t := range pn.Targets {
				if refs[t.RefID] || t.RefID == "" {
					bad("%s: refId %q is empty or given twice", where, t.RefID)
				}
				refs[t.RefID] = true
				if t.Datasource != nil && !isVar(t.Datasource) {
					bad("%s, query %s: datasource %+v, want the panel's", where, t.RefID, t.Datasource)
				}
				checkExpr(where, t.Expr)
			}
		}
	}
	walk(d.Panels)
	for _, m := range metrics {
		if !shown[m.Name] {
			bad("no panel shows %s", m.Name)
		}
	}
	return slices.Clip(errs)
}
