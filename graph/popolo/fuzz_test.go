package popolo_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/polgraph/polgraph/graph/popolo"
)

// FuzzImport: whatever a file holds, an import either refuses it with an error or maps it to records that
// are a valid dataset (every limit of the format kept), and writing them as Popolo does not fail.
func FuzzImport(f *testing.F) {
	for _, p := range []string{filepath.Join("testdata", "parlparse-sample.json")} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"persons":[{"id":"x","name":"\u0000` + string(bytes.Repeat([]byte("ab "), 400)) + `","birth_date":"1970-02-31",` +
		`"identifiers":[{"scheme":"WIKI DATA","identifier":"Q1"},{"scheme":"ocd","identifier":"nope"}],"links":[{"url":"javascript:x"}]}],` +
		`"organizations":[{"id":"p","name":"-- --","classification":"party"}],` +
		`"memberships":[{"person_id":"x","organization_id":"p","start_date":"2020","end_date":"2010"},{"person_id":"x","organization_id":"p","on_behalf_of_id":"p"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := popolo.Decode(bytes.NewReader(b), "f.json")
		if err != nil {
			return
		}
		sub, _, err := popolo.Import(context.Background(), memGraph(nil), []popolo.Input{{Name: "f.json", File: doc}}, popolo.Options{})
		if err != nil {
			t.Fatalf("Import: %v", err)
		}
		checkValid(t, sub)
		if err := popolo.Write(&bytes.Buffer{}, sub); err != nil {
			t.Fatalf("Write: %v", err)
		}
	})
}
