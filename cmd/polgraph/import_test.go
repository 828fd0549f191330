package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// TestImportChecksTheFileFirst points the import at an address where no Dgraph listens: an invalid file
// must be rejected, with every problem, before any connection is tried.
func TestImportChecksTheFileFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.csv")
	text := "id,name,sameAs,sameAsNote,validThrough,validFrom\n" +
		"ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_bow,Bethnal Green and Bow,ocd-division/country:gb/ed:gone,,2024-13-01,\n" +
		"ocd-division/country:gb/ed:Bad Id,,,,,\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	err := realMain(context.Background(), []string{"import", "ocd-divisions", "--dgraph", "127.0.0.1:1", path}, io.Discard, io.Discard)
	if graph.KindOf(err) != graph.Invalid {
		t.Fatalf("got %v, want an Invalid error about the file (an Unavailable one means it connected first)", err)
	}
	msg := err.Error()
	for _, want := range []string{"nothing was written", path + ":2: validThrough: ", path + ":2: sameAs: ",
		path + ":3: id: ", path + ":3: name: required"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not mention %q:\n%s", want, msg)
		}
	}
	if exitCode(err) != 3 {
		t.Errorf("exit code %d, want 3 for invalid input", exitCode(err))
	}
}

func TestImportUsage(t *testing.T) {
	for _, args := range [][]string{
		{"import"},
		{"import", "wards", "x.csv"},
		{"import", "ocd-divisions"},
		{"import", "ocd-divisions", "a.csv", "b.csv"},
	} {
		var stderr bytes.Buffer
		err := realMain(context.Background(), args, io.Discard, &stderr)
		if !errors.Is(err, errUsage) {
			t.Errorf("%q: got %v, want a usage error", args, err)
		}
		if !strings.Contains(stderr.String(), "polgraph import ocd-divisions") {
			t.Errorf("%q: stderr does not show the usage:\n%s", args, stderr.String())
		}
	}
}
