package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// runCLI runs a CLI command against the service under test (TestMain's), and returns what it printed.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCLIAt(t, serverAddr, args...)
}

// runCLIAt runs a CLI command against the service at server, and returns what it printed.
func runCLIAt(t *testing.T, server string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := realMain(context.Background(), append(args, "--server", server), &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestCLIPath(t *testing.T) {
	out, err := runCLI(t, "path", "Ajmal Masroor", "Keir Starmer", "--max-paths", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Path 1 (3 hops): Ajmal Masroor —FORMERLY_WORKED_WITH— Lutfur Rahman —MEMBER_OF +1→ Labour", "Path 2 (4 hops)", "Keir Starmer leads Labour",
		"  2 relations, 3 claims support it\n  Lutfur Rahman member of Labour", "  Lutfur Rahman defeated Labour (2022)",
		`REPORTED 0.90  "Ajmal and Rabina were both previously working with Lutfur Rahman." — `, "Daily Mail, 2023-11-03",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Path 3") {
		t.Errorf("asked for 2 paths, got more:\n%s", out)
	}
	out, err = runCLI(t, "path", "Ajmal Masroor", "Keir Starmer", "--max-depth", "2")
	if err != nil || !strings.Contains(out, "No path from Ajmal Masroor to Keir Starmer") {
		t.Errorf("with --max-depth 2: %v\n%s", err, out)
	}
	out, err = runCLI(t, "path", "Ajmal Masroor", "Keir Starmer", "--json")
	var doc struct{ Paths []json.RawMessage }
	if err != nil || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Paths) != 3 {
		t.Errorf("--json: %v\n%s", err, out)
	}
}

func TestCLIAround(t *testing.T) {
	out, err := runCLI(t, "around", "Lutfur Rahman", "--depth", "2", "--as-of", "2015", "--max-per-node", "3")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Lutfur Rahman (actor):", "Mayor of Tower Hamlets (seat)", "Lutfur Rahman: 1 more entity not shown (1 relation: 1 member of out)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(2022–)") || strings.Contains(out, "Aspire (party)") {
		t.Errorf("as of 2015 the output shows later relations:\n%s", out)
	}
}

func TestCLIErrors(t *testing.T) {
	_, err := runCLI(t, "around", "Lutfur Rahman", "--types", "FRIENDS_WITH")
	if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), `--types: "FRIENDS_WITH" is not a relation type`) {
		t.Errorf("unknown type: %v", err)
	}
	_, err = runCLI(t, "path", "Lutfur Rahman", "Nobody Known")
	if err == nil || !strings.Contains(err.Error(), "Nobody Known") || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("unknown entity: %v", err)
	}
	var out bytes.Buffer
	err = realMain(context.Background(), []string{"path", "a", "b", "--server", "127.0.0.1:1"}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "cannot reach polgraph at 127.0.0.1:1") {
		t.Errorf("server down: %v", err)
	}
	if err := realMain(context.Background(), []string{"path", "only-one"}, &out, &out); err != errUsage {
		t.Errorf("one argument: %v, want the usage error", err)
	}
}

func TestEmptyAnswersSayWhatWouldFillThem(t *testing.T) {
	var b strings.Builder
	writePaths(&b, "A", "B", &pb.FindPathsResponse{IfRelaxed: []*pb.Relaxation{
		{Change: "undated relations are included", Results: 1}, {Change: "no date is asked about", Results: 3}}})
	want := "No path from A to B within the depth and filters asked; 1 path if undated relations are included, 3 paths if no date is asked about.\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	writePaths(&b, "A", "B", &pb.FindPathsResponse{NoPath: "A (actors/a) takes part in no relation"})
	if want := "No path from A to B (A (actors/a) takes part in no relation).\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if got := ifRelaxed([]*pb.Relaxation{{Change: "every relation type counts", Results: 2}}, "entity"); got != "; 2 entities if every relation type counts" {
		t.Errorf("ifRelaxed: %q", got)
	}
}
