package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph/dataset"
)

func TestGen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, rdf := filepath.Join(dir, "g.jsonl"), filepath.Join(dir, "g.rdf.gz")
	var stdout bytes.Buffer
	if err := genCmd(t.Context(), []string{"--relations", "1500", "--seed", "4", "--out", out, "--rdf", rdf}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "1500 relations") {
		t.Errorf("gen says %q", stdout.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := dataset.Read([]dataset.File{{Name: out, R: f}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Relations) != 1500 {
		t.Errorf("%d relations; want 1500", len(ds.Relations))
	}
	if st, err := os.Stat(rdf); err != nil || st.Size() == 0 {
		t.Errorf("no N-Quads written: %v", err)
	}
}

func TestGenUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"--relations", "ten", "--out", "x"}, {"--out", "x", "extra"}} {
		if err := genCmd(t.Context(), args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("gen %q: %v; want a usage error", args, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"10k": 10_000, "100K": 100_000, "1m": 1_000_000, "2500": 2500} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
