package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// unsetenv unsets an environment variable for the rest of the test, restored at its end.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "")
	os.Unsetenv(key)
}

// TestWritingCommandsSayWhereTheyWrite: every command that writes says first where it writes, and one
// that would write to the default Dgraph while POLGRAPH_ADDR names another polgraph is refused, saying
// both and how to choose, before it writes anything.
func TestWritingCommandsSayWhereTheyWrite(t *testing.T) {
	w := newWriter(t, "editor")
	t.Setenv("POLGRAPH_API_KEY", w.key)
	dir := t.TempDir()
	file := filepath.Join(dir, "target.jsonl")
	entity := "actors/" + w.slug("target")
	if err := os.WriteFile(file, []byte(`{"record":"dataset","format":"polgraph/v1","name":"target"}`+"\n"+
		`{"record":"entity","name":"`+entity+`","display_name":"Target `+w.slugTag+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "article.txt")
	if err := os.WriteFile(text, []byte("Lutfur Rahman endorsed Ajmal Masroor on Monday, the Mayor said.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "divisions.csv")
	if err := os.WriteFile(csv, []byte("id,name,sameAs,sameAsNote,validThrough,validFrom\n"+
		"ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_stepney,Bethnal Green and Stepney,,,,2024-07-04\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const elsewhere = "192.0.2.1:50051" // another instance's polgraph
	defaultDgraph := defaultConfig().Dgraph

	t.Run("refused", func(t *testing.T) {
		t.Setenv("POLGRAPH_ADDR", elsewhere)
		unsetenv(t, "POLGRAPH_DGRAPH")
		for _, tc := range []struct {
			name string
			args []string
			says []string
		}{
			{"load", []string{"load", file}, []string{"POLGRAPH_ADDR is set to " + elsewhere, "the default Dgraph at " + defaultDgraph,
				"pass --server " + elsewhere, "pass --dgraph"}},
			{"import ocd-divisions", []string{"import", "ocd-divisions", csv}, []string{"POLGRAPH_ADDR is set to " + elsewhere, "pass --server " + elsewhere}},
			{"import popolo", []string{"import", "popolo", "../../data/popolo/wales-assembly.json"}, []string{"POLGRAPH_ADDR is set to " + elsewhere}},
			{"import ftm", []string{"import", "ftm", "../../graph/ftm/testdata/sample.ftm.json"}, []string{"POLGRAPH_ADDR is set to " + elsewhere}},
			{"ingest", []string{"ingest", text}, []string{"POLGRAPH_ADDR is set to " + elsewhere, "the default Dgraph at " + defaultDgraph, "pass --server " + elsewhere}},
			{"keys create", []string{"keys", "create", "--name", uniqueName("target"), "--role", "reader"}, []string{"POLGRAPH_ADDR is set to " + elsewhere, "pass --dgraph"}},
			{"keys revoke", []string{"keys", "revoke", "nobody"}, []string{"POLGRAPH_ADDR is set to " + elsewhere}},
			{"--server and --dgraph", []string{"load", "--server", serverAddr, "--dgraph", alphaAddr, file},
				[]string{"--server " + serverAddr + " and --dgraph " + alphaAddr + " are both given"}},
			{"--server and --dgraph to ingest", []string{"ingest", "--server", serverAddr, "--dgraph", alphaAddr, text},
				[]string{"are both given"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := graphCounts(t)
				var stdout, stderr bytes.Buffer
				err := realMain(context.Background(), tc.args, &stdout, &stderr)
				if err == nil {
					t.Fatalf("it ran:\n%s%s", stdout.String(), stderr.String())
				}
				for _, s := range tc.says {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("the error does not say %q:\n%v", s, err)
					}
				}
				if strings.Contains(stdout.String()+stderr.String(), "writing") {
					t.Errorf("a refused command says it writes:\n%s%s", stdout.String(), stderr.String())
				}
				if after := graphCounts(t); after != before {
					t.Errorf("a refused command wrote: %+v, then %+v", before, after)
				}
			})
		}
	})

	t.Run("chosen", func(t *testing.T) {
		t.Setenv("POLGRAPH_ADDR", elsewhere)
		for _, tc := range []struct {
			name, dgraphEnv string
			args            []string
			first           string
		}{
			{"--dgraph", "", append([]string{"load"}, append(dgraphFlags(), file)...), "writing to Dgraph at " + alphaAddr},
			{"POLGRAPH_DGRAPH", alphaAddr, []string{"load", "--data-dir", testDgraph.DataDir, file}, "writing to Dgraph at " + alphaAddr},
			{"--server", "", []string{"load", "--server", serverAddr, file}, "writing through polgraph at " + serverAddr},
			{"ingest --server", "", []string{"ingest", "--server", serverAddr, text}, "writing through polgraph at " + serverAddr},
			{"ingest --dgraph", "", append([]string{"ingest", text}, dgraphFlags()...), "writing to Dgraph at " + alphaAddr},
			{"import --server", "", []string{"import", "ocd-divisions", "--server", serverAddr, csv}, "writing through polgraph at " + serverAddr},
			{"keys create --dgraph", "", append([]string{"keys", "create", "--name", uniqueName("target"), "--role", "reader"}, dgraphFlags()...),
				"writing to Dgraph at " + alphaAddr},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.dgraphEnv != "" {
					t.Setenv("POLGRAPH_DGRAPH", tc.dgraphEnv)
				} else {
					unsetenv(t, "POLGRAPH_DGRAPH")
				}
				var stdout, stderr bytes.Buffer
				if err := realMain(context.Background(), tc.args, &stdout, &stderr); err != nil {
					t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
				}
				if first, _, _ := strings.Cut(stderr.String(), "\n"); first != tc.first {
					t.Errorf("the first line on stderr is %q; want %q", first, tc.first)
				}
				if strings.Contains(stdout.String(), "writing ") {
					t.Errorf("stdout says where it writes, which is stderr's to say:\n%s", stdout.String())
				}
			})
		}
		if _, err := store.GetEntity(context.Background(), graph.EntityName(entity)); err != nil {
			t.Errorf("the loads wrote no %s: %v", entity, err)
		}
	})
}

// TestLoadThroughTheServerSendsWhatFitsAndRefusesTheRest: a line too long for a request to polgraph is
// refused before it is sent, as FILE:LINE with the limit, and nothing of the load is written; a long line
// that fits goes in a request of its own, for the service to check (and refuse: no valid record is that
// long).
func TestLoadThroughTheServerSendsWhatFitsAndRefusesTheRest(t *testing.T) {
	w := newWriter(t, "editor")
	t.Setenv("POLGRAPH_API_KEY", w.key)
	entity := "actors/" + w.slug("before-the-long-line")
	// The lines before the long one fill most of a request (which takes up to 1 MiB of lines at a time).
	head := `{"record":"dataset","format":"polgraph/v1","name":"long"}` + "\n" +
		`{"record":"entity","name":"` + entity + `","display_name":"Before ` + w.slugTag + `","description":"` + strings.Repeat("a", 1000<<10) + `"}` + "\n"
	for _, tc := range []struct {
		name        string
		description int
		says        func(line int) string
	}{
		{"over the limit", 5 << 20, func(n int) string {
			return fmt.Sprintf(":3: the record is %d bytes; a request to polgraph holds at most 4 MiB (4194304 bytes)", n)
		}},
		{"within it", 3500 << 10, func(int) string { return ":3: description: 3584000 bytes; at most 10000" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			long := `{"record":"entity","name":"actors/` + w.slug("long") + `","display_name":"Long","description":"` + strings.Repeat("x", tc.description) + `"}`
			path := filepath.Join(t.TempDir(), "long.jsonl")
			if err := os.WriteFile(path, []byte(head+long+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			says := tc.says(len(long))
			before, loads := graphCounts(t), callsEnded(t, pb.WriteService_Load_FullMethodName)
			var out bytes.Buffer
			err := realMain(context.Background(), []string{"load", "--server", serverAddr, path}, &out, &out)
			if err == nil || !strings.Contains(err.Error(), path+says) || strings.Contains(err.Error(), "larger than max") {
				t.Fatalf("got %.600v\nwant an error saying %q", err, path+says)
			}
			waitForCallsEnded(t, pb.WriteService_Load_FullMethodName, loads+1) // the service has seen the stream end
			if after := graphCounts(t); after != before {
				t.Errorf("a refused load wrote: %+v, then %+v", before, after)
			}
			if _, err := store.GetEntity(context.Background(), graph.EntityName(entity)); graph.KindOf(err) != graph.NotFound {
				t.Errorf("the line before the refused one was written: %v", err)
			}
		})
	}
}
