package backup

import (
	"fmt"
	"strings"
	"testing"
)

func TestFingerprintRDF(t *testing.T) {
	t.Parallel()
	lines := []string{
		`<0x1> <pg.name> "actors/keir-starmer"^^<xs:string> <0x0> .`,
		`<0x1> <dgraph.type> "Entity"^^<xs:string> <0x0> .`,
		`<0x2> <pg.subject> <0x1> <0x0> .`,
		`<0x2> <pg.type> "ENDORSES"^^<xs:string> <0x0> (since=2020-01-01T00:00:00Z) .`,
	}
	// Dgraph's own data: not polgraph's, so not counted.
	theirs := []string{
		`<0x9> <dgraph.type> "dgraph.type.User"^^<xs:string> <0x0> .`,
		`<0x9> <dgraph.xid> "groot"^^<xs:string> <0x0> .`,
	}
	sum := func(ls []string) (string, int64) {
		t.Helper()
		s, n, err := fingerprintRDF(strings.NewReader(strings.Join(ls, "\n") + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		return s.hex(), n
	}
	want, n := sum(lines)
	if n != 4 {
		t.Fatalf("lines counted: %d, want 4", n)
	}
	reversed := []string{lines[3], theirs[0], lines[2], lines[1], theirs[1], lines[0]}
	if got, _ := sum(reversed); got != want {
		t.Errorf("another order, or Dgraph's own lines, changed the fingerprint: %s, want %s", got, want)
	}
	changed := append([]string{}, lines...)
	changed[3] = strings.Replace(changed[3], "2020", "2021", 1)
	for name, ls := range map[string][]string{"a value changed": changed, "a line lost": lines[:3], "a line twice": append(lines, lines[0])} {
		if got, _ := sum(ls); got == want {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
	// Lines across the reader's blocks (4 MiB): cut anywhere, counted once.
	var big []string
	for i := range 200000 {
		big = append(big, fmt.Sprintf(`<0x%x> <pg.name> "actors/a-long-enough-name-%d"^^<xs:string> <0x0> .`, i+1, i))
	}
	if _, n := sum(big); n != 200000 {
		t.Errorf("lines over several blocks: %d counted, want 200000", n)
	}
}
