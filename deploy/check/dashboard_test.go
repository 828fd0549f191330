package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readDashboard(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy/grafana/polgraph.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDashboard(t *testing.T) {
	t.Parallel()
	for _, err := range CheckDashboard([]byte(readDashboard(t)), PolgraphMetrics) {
		t.Error(err)
	}
}

// TestCheckDashboardFindsProblems changes the dashboard's JSON one way at a time.
func TestCheckDashboardFindsProblems(t *testing.T) {
	t.Parallel()
	src := readDashboard(t)
	for _, tc := range []struct{ name, old, new, want string }{
		{"a metric polgraph lacks", "go_goroutines{", "go_threads{", "go_threads, which is not one of"},
		{"a misspelt metric", "polgraph_graph_version_lag{", "polgraph_graph_versions_lag{", "polgraph_graph_versions_lag"},
		{"a histogram read without a suffix", "rate(polgraph_dgraph_call_duration_seconds_count{", "rate(polgraph_dgraph_call_duration_seconds{", "polgraph_dgraph_call_duration_seconds, which is not"},
		{"a selector without a name", "polgraph_database_up{job", `{__name__=~\"polgraph_.+\", job`, "by labels only"},
		{"an expression that does not parse", "sum by (code) (rate(", "sum by (code) (rate((", "is not PromQL"},
		{"a metric no panel shows", "process_resident_memory_bytes{", "go_memstats_heap_inuse_bytes{", "no panel shows process_resident_memory_bytes"},
		{"a panel without its datasource", `"datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos"`, `"gridPos"`, "want the datasource variable"},
		{"a panel on a fixed datasource", `"datasource": {
        "type": "prometheus",
        "uid": "${datasource}"
      },
      "gridPos"`, `"datasource": {
        "type": "prometheus",
        "uid": "P1809F7CD0C75ACF3"
      },
      "gridPos"`, "want the datasource variable"},
		{"no datasource variable", `"type": "datasource",`, `"type": "custom",`, "no templating variable"},
		{"two panels with one id", `"id": 3,`, `"id": 2,`, "another panel has id 2"},
		{"a refId twice", `"refId": "B",`, `"refId": "A",`, "given twice"},
		{"a variable on an unknown metric", "label_values(polgraph_database_up, job)", "label_values(up, job)", "variable job"},
		{"not JSON", `"title": "polgraph",`, `"title": "polgraph"`, "not a dashboard's JSON"},
		{"no uid", `"uid": "polgraph",`, `"uid": "",`, "want all three"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("the dashboard has no %q to change", tc.old)
			}
			if errs := CheckDashboard([]byte(strings.Replace(src, tc.old, tc.new, 1)), PolgraphMetrics); !anyContains(errs, tc.want) {
				t.Errorf("want a problem with %q; got %v", tc.want, errs)
			}
		})
	}
}
