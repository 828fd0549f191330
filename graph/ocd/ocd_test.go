package ocd

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

const (
	header = "id,name,sameAs,sameAsNote,validThrough,validFrom\n"
	bow    = "ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_bow"
	stp    = "ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_stepney"
	luton  = "ocd-division/country:gb/part:eng/region:ukh/ed:luton_south"
	lutonB = "ocd-division/country:gb/part:eng/region:ukh/ed:luton_south_and_south_bedfordshire"
)

func read(t *testing.T, name, text string) (*List, error) {
	t.Helper()
	return Read(dataset.File{Name: name, R: strings.NewReader(text)})
}

func mustRead(t *testing.T, text string) *List {
	t.Helper()
	l, err := read(t, "list.csv", text)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return l
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ id, want string }{
		{stp, "bethnal-green-and-stepney"},
		{"ocd-division/country:gb/part:eng/region:ukc/ed:berwick-upon-tweed", "berwick-upon-tweed"},
		{"ocd-division/country:gb/part:wls/ed:ynys_môn", "ynys-mon"},
		{"ocd-division/country:gb/part:eng/region:uki/ed:st._albans", "st-albans"},
		{"ocd-division/country:gb/part:eng/region:uki/ed:a__b--c", "a-b-c"},
		{"ocd-division/country:gb/part:wls/ed:ŵŵ", ""},
		{"ocd-division/country:gb/part:eng/ed:" + strings.Repeat("abcdefghi_", 12), strings.TrimSuffix(strings.Repeat("abcdefghi-", 10), "-")},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := Slug(tc.id); got != tc.want {
				t.Errorf("Slug(%q) = %q, want %q", tc.id, got, tc.want)
			}
			if tc.want != "" && !graph.ValidSlug(Slug(tc.id)) {
				t.Errorf("Slug(%q) = %q is not a valid slug", tc.id, Slug(tc.id))
			}
		})
	}
}

func TestCheckID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, id, wantErr string
	}{
		{"constituency", stp, ""},
		{"hyphens", "ocd-division/country:gb/part:eng/region:ukc/ed:berwick-upon-tweed", ""},
		{"accented", "ocd-division/country:gb/part:wls/ed:ynys_môn", ""},
		{"no prefix", "country:gb/ed:x", "not an Open Civic Data division id"},
		{"other prefix", "ocd-person/country:gb/ed:x", "not an Open Civic Data division id"},
		{"country only", "ocd-division/country:gb", "names a country"},
		{"not country first", "ocd-division/part:eng/ed:x", "first part must be country"},
		{"part without colon", "ocd-division/country:gb/bethnal_green", "is not type:value"},
		{"empty value", "ocd-division/country:gb/ed:", "is not type:value"},
		{"empty part", "ocd-division/country:gb//ed:x", "is not type:value"},
		{"upper case", "ocd-division/country:gb/ed:Bethnal_Green", "must be lower-case letters, digits"},
		{"space", "ocd-division/country:gb/ed:bethnal green", "must be lower-case letters, digits"},
		{"bad type", "ocd-division/country:gb/ED:x", "type \"ED\""},
		{"no slug", "ocd-division/country:gb/ed:___", "makes no slug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckID(tc.id)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("CheckID(%q) = %v, want nil", tc.id, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("CheckID(%q) = %v, want an error containing %q", tc.id, err, tc.wantErr)
			}
		})
	}
}

func TestSuccessionDate(t *testing.T) {
	t.Parallel()
	day := func(y, m, d int) graph.FuzzyDate { return graph.FuzzyDate{Year: y, Month: m, Day: d} }
	for _, tc := range []struct {
		name      string
		div, succ Division
		want      graph.FuzzyDate
	}{
		{"successor's validFrom", Division{ValidThrough: day(2024, 7, 2)}, Division{ValidFrom: day(2024, 7, 4)}, day(2024, 7, 4)},
		{"day after validThrough", Division{ValidThrough: day(2024, 7, 3)}, Division{}, day(2024, 7, 4)},
		{"end of month", Division{ValidThrough: day(2024, 2, 29)}, Division{}, day(2024, 3, 1)},
		{"end of year", Division{ValidThrough: day(2024, 12, 31)}, Division{}, day(2025, 1, 1)},
		{"date the note begins with", Division{SameAsNote: "2024-07-04: The boundaries of Luton South will change."}, Division{}, day(2024, 7, 4)},
		{"note without a date", Division{SameAsNote: "Renamed: see the order."}, Division{}, graph.FuzzyDate{}},
		{"nothing known", Division{}, Division{}, graph.FuzzyDate{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := successionDate(tc.div, tc.succ); got != tc.want {
				t.Errorf("successionDate = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadValid(t *testing.T) {
	t.Parallel()
	l := mustRead(t, "\uFEFF"+header+
		bow+",Bethnal Green and Bow,,,2024-07-03,\n"+
		stp+",Bethnal Green and Stepney,,,,2024-07-04\n"+
		luton+",Luton South,"+lutonB+",\"2024-07-04: The boundaries of Luton South will change, and it will be renamed Luton South and South Bedfordshire.\",,\n"+
		lutonB+",Luton South and South Bedfordshire,,,,\n"+
		"ocd-division/country:gb/part:eng/region:ukj/ed:newport,Newport,,,,\n"+
		"ocd-division/country:gb/part:wls/ed:newport,Newport,,,,\n")
	want := []Division{
		{Line: 2, ID: bow, Name: "Bethnal Green and Bow", ValidThrough: graph.FuzzyDate{Year: 2024, Month: 7, Day: 3}, Slug: "bethnal-green-and-bow"},
		{Line: 3, ID: stp, Name: "Bethnal Green and Stepney", ValidFrom: graph.FuzzyDate{Year: 2024, Month: 7, Day: 4}, Slug: "bethnal-green-and-stepney"},
		{Line: 4, ID: luton, Name: "Luton South", SameAs: lutonB,
			SameAsNote: "2024-07-04: The boundaries of Luton South will change, and it will be renamed Luton South and South Bedfordshire.", Slug: "luton-south"},
		{Line: 5, ID: lutonB, Name: "Luton South and South Bedfordshire", Slug: "luton-south-and-south-bedfordshire"},
		{Line: 6, ID: "ocd-division/country:gb/part:eng/region:ukj/ed:newport", Name: "Newport", Slug: "newport-ukj"},
		{Line: 7, ID: "ocd-division/country:gb/part:wls/ed:newport", Name: "Newport", Slug: "newport-wls"},
	}
	for i := range l.Divisions {
		l.Divisions[i].row = nil
	}
	if !reflect.DeepEqual(want, l.Divisions) {
		t.Errorf("Read:\nwant %+v\n got %+v", want, l.Divisions)
	}
}

func TestReadSlugsDoNotDependOnRowOrder(t *testing.T) {
	t.Parallel()
	a := "ocd-division/country:gb/part:eng/region:ukj/ed:newport,Newport,,,,\n"
	b := "ocd-division/country:gb/part:wls/ed:newport,Newport,,,,\n"
	c := "ocd-division/country:gb/part:wls/ed:newport-,Newport,,,,\n" // the same slug, in the same parent
	slugs := func(l *List) map[string]string {
		m := map[string]string{}
		for _, d := range l.Divisions {
			m[d.ID] = d.Slug
		}
		return m
	}
	one, two := slugs(mustRead(t, header+a+b+c)), slugs(mustRead(t, header+c+b+a))
	if !reflect.DeepEqual(one, two) {
		t.Errorf("slugs depend on the order of the rows:\n%v\n%v", one, two)
	}
	want := map[string]string{
		"ocd-division/country:gb/part:eng/region:ukj/ed:newport": "newport-ukj",
		"ocd-division/country:gb/part:wls/ed:newport":            "newport-wls",
		"ocd-division/country:gb/part:wls/ed:newport-":           "newport-wls-2",
	}
	if !reflect.DeepEqual(want, one) {
		t.Errorf("slugs: want %v, got %v", want, one)
	}
}

// TestReadProblems checks that each kind of problem is reported where it is, as FILE:LINE: FIELD.
func TestReadProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       []string // "FIELD: substring of the message"
	}{
		{"empty file", "", []string{"f.csv:1: the file is empty"}},
		{"header only", header, []string{"f.csv:2: no divisions"}},
		{"missing column", "id,name,sameAs,sameAsNote,validThrough\n" + stp + ",B,,,\n",
			[]string{`f.csv:1: header: missing column "validFrom"`}},
		{"unknown column", "id,name,sameAs,sameAsNote,validThrough,validFrom,notes\n",
			[]string{`f.csv:1: header: unknown column "notes"`}},
		{"repeated column", "id,name,name,sameAs,sameAsNote,validThrough,validFrom\n",
			[]string{`f.csv:1: header: column "name" appears twice`}},
		{"not CSV at all", "id,name\n\"a,b\n", []string{`f.csv:1: header: missing column "sameAs"`}},
		{"malformed id", header + "ocd-division/country:gb/ed:Bethnal Green,Bethnal Green,,,,\n",
			[]string{"f.csv:2: id: ", "must be lower-case"}},
		{"not an OCD id", header + "E14000555,Bethnal Green,,,,\n",
			[]string{"f.csv:2: id: ", "not an Open Civic Data division id"}},
		{"repeated id", header + stp + ",B,,,,\n" + stp + ",B,,,,\n",
			[]string{"f.csv:3: id: ", "already at line 2"}},
		{"missing name", header + stp + ", ,,,,\n", []string{"f.csv:2: name: required"}},
		{"an invisible character in the name", header + stp + ",Bethnal\u200b Green,,,,\n",
			[]string{"f.csv:2: name: contains the invisible character U+200B (zero width space) at byte 8"}},
		{"a control character in the name", header + stp + ",Bethnal\x1bGreen,,,,\n",
			[]string{"f.csv:2: name: contains the control character U+001B (escape) at byte 8"}},
		{"long name", header + stp + "," + strings.Repeat("x", 501) + ",,,,\n", []string{"f.csv:2: name: 501 bytes"}},
		{"bad validThrough", header + stp + ",B,,,03/07/2024,\n",
			[]string{`f.csv:2: validThrough: "03/07/2024" is not a date`}},
		{"bad validFrom", header + stp + ",B,,,,2024-02-30\n",
			[]string{`f.csv:2: validFrom: "2024-02-30" is not a date`}},
		{"fuzzy date", header + stp + ",B,,,,2024\n", []string{`f.csv:2: validFrom: "2024" is not a date: want YYYY-MM-DD`}},
		{"ends before it starts", header + stp + ",B,,,2024-07-03,2024-07-04\n",
			[]string{"f.csv:2: validThrough: 2024-07-03 is before validFrom 2024-07-04"}},
		{"sameAs not in the file", header + bow + ",Bow,ocd-division/country:gb/ed:nowhere,,,\n",
			[]string{"f.csv:2: sameAs: ocd-division/country:gb/ed:nowhere is not an id in this file"}},
		{"sameAs malformed", header + bow + ",Bow,bethnal_green_and_stepney,,,\n",
			[]string{"f.csv:2: sameAs: ", "not an Open Civic Data division id"}},
		{"sameAs itself", header + bow + ",Bow," + bow + ",,,\n", []string{"f.csv:2: sameAs: a division cannot succeed itself"}},
		{"long note", header + bow + ",Bow," + stp + "," + strings.Repeat("x", 601) + ",,\n" + stp + ",S,,,,\n",
			[]string{"f.csv:2: sameAsNote: 601 characters"}},
		{"too few fields", header + stp + ",B,,,\n", []string{"f.csv:2: 5 fields; the header has 6"}},
		{"bare quote", header + stp + ",B \"x\",,,,\n", []string{"f.csv:2: not valid CSV"}},
		{"every problem at once", header +
			"bad,B,,,,\n" +
			stp + ",,,,,\n" +
			bow + ",Bow,ocd-division/country:gb/ed:gone,,2024-13-01,\n",
			[]string{"f.csv:2: id: ", "f.csv:3: name: required", "f.csv:4: validThrough: ", "f.csv:4: sameAs: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, err := read(t, "f.csv", tc.text)
			if err == nil {
				t.Fatalf("Read succeeded with %d divisions; want problems %q", len(l.Divisions), tc.want)
			}
			var ge *graph.Error
			if !errors.As(err, &ge) || ge.Kind != graph.Invalid {
				t.Fatalf("Read error %v is not an Invalid *graph.Error", err)
			}
			if !strings.Contains(ge.Message, "nothing was written") {
				t.Errorf("message %q does not say that nothing was written", ge.Message)
			}
			var got []string
			for _, v := range ge.Violations {
				got = append(got, v.Field+": "+v.Description)
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("problems do not mention %q; got:\n%s", w, all)
				}
			}
			if tc.name == "every problem at once" && len(got) != len(tc.want) {
				t.Errorf("got %d problems, want %d:\n%s", len(got), len(tc.want), all)
			}
		})
	}
}

func TestSource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want graph.Source
	}{
		{"../shared/data/ocd-gb-constituencies.csv", StandardSource},
		{"/tmp/Scotland seats.csv", graph.Source{Name: "sources/ocd-scotland-seats", Title: "Open Civic Data division list Scotland seats.csv", Kind: graph.SourceDataset}},
		{"ocd-gb-wards.csv", graph.Source{Name: "sources/ocd-gb-wards", Title: "Open Civic Data division list ocd-gb-wards.csv", Kind: graph.SourceDataset}},
	} {
		if got := (&List{File: tc.file}).Source(); got != tc.want {
			t.Errorf("Source of %s:\nwant %+v\n got %+v", tc.file, tc.want, got)
		}
	}
}

// shortList is two seats joined by a note, two by dates only, and one a ward shares a name with.
const shortList = header +
	bow + ",Bethnal Green and Bow," + stp + ",,2024-07-03,\n" +
	stp + ",Bethnal Green and Stepney,,,,2024-07-04\n" +
	luton + ",Luton South," + lutonB + ",\"2024-07-04: The boundaries of Luton South will change, and it will be renamed Luton South and South Bedfordshire.\",,\n" +
	lutonB + ",Luton South and South Bedfordshire,,,,\n" +
	"ocd-division/country:gb/part:eng/region:uki/ed:weavers,Weavers,,,,\n"

func TestDatasetNewSeats(t *testing.T) {
	t.Parallel()
	l := mustRead(t, shortList)
	ds, err := l.Dataset(Known{})
	if err != nil {
		t.Fatal(err)
	}
	src := l.Source()
	wantEntities := []graph.Entity{
		{Name: "seats/bethnal-green-and-bow", Kind: graph.KindSeat, DisplayName: "Bethnal Green and Bow", Description: "UK parliamentary constituency.",
			Identifiers: graph.Identifiers{"ocd": {bow}}, ValidTo: graph.FuzzyDate{Year: 2024, Month: 7, Day: 3}},
		{Name: "seats/bethnal-green-and-stepney", Kind: graph.KindSeat, DisplayName: "Bethnal Green and Stepney", Description: "UK parliamentary constituency.",
			Identifiers: graph.Identifiers{"ocd": {stp}}, ValidFrom: graph.FuzzyDate{Year: 2024, Month: 7, Day: 4}},
		{Name: "seats/luton-south", Kind: graph.KindSeat, DisplayName: "Luton South", Description: "UK parliamentary constituency.",
			Identifiers: graph.Identifiers{"ocd": {luton}}},
		{Name: "seats/luton-south-and-south-bedfordshire", Kind: graph.KindSeat, DisplayName: "Luton South and South Bedfordshire",
			Description: "UK parliamentary constituency.", Identifiers: graph.Identifiers{"ocd": {lutonB}}},
		{Name: "seats/weavers", Kind: graph.KindSeat, DisplayName: "Weavers", Description: "UK parliamentary constituency.",
			Identifiers: graph.Identifiers{"ocd": {"ocd-division/country:gb/part:eng/region:uki/ed:weavers"}}},
	}
	if !reflect.DeepEqual(wantEntities, ds.Entities) {
		t.Errorf("entities:\nwant %+v\n got %+v", wantEntities, ds.Entities)
	}
	bowRel := graph.RelationName("relations/bethnal-green-and-bow.succeeded-by.bethnal-green-and-stepney")
	lutonRel := graph.RelationName("relations/luton-south.succeeded-by.luton-south-and-south-bedfordshire")
	wantRelations := []graph.Relation{
		{Name: bowRel, Type: graph.SucceededBy, From: "seats/bethnal-green-and-bow", To: "seats/bethnal-green-and-stepney",
			Date: graph.FuzzyDate{Year: 2024, Month: 7, Day: 4},
			Claims: []graph.Claim{{Name: string(bowRel) + "/claims/ocd-list", Source: src, Confidence: 1, Status: graph.StatusReported,
				Excerpt: bow + ",Bethnal Green and Bow," + stp + ",,2024-07-03,"}}},
		{Name: lutonRel, Type: graph.SucceededBy, From: "seats/luton-south", To: "seats/luton-south-and-south-bedfordshire",
			Date: graph.FuzzyDate{Year: 2024, Month: 7, Day: 4},
			Claims: []graph.Claim{{Name: string(lutonRel) + "/claims/ocd-list", Source: src, Confidence: 1, Status: graph.StatusReported,
				Excerpt: "2024-07-04: The boundaries of Luton South will change, and it will be renamed Luton South and South Bedfordshire."}}},
	}
	if !reflect.DeepEqual(wantRelations, ds.Relations) {
		t.Errorf("relations:\nwant %+v\n got %+v", wantRelations, ds.Relations)
	}
	if !reflect.DeepEqual([]graph.Source{src}, ds.Sources) || src.Name != "sources/ocd-list" {
		t.Errorf("sources: got %+v", ds.Sources)
	}
	again, err := l.Dataset(Known{})
	if err != nil || !reflect.DeepEqual(ds, again) {
		t.Errorf("building twice gave another dataset (err %v)", err)
	}
}

// TestDatasetMerges checks that a seat the graph holds keeps its name and curated fields, that a name
// taken by another entity is qualified, and that merging is a fixed point, so importing twice is a no-op.
func TestDatasetMerges(t *testing.T) {
	t.Parallel()
	l := mustRead(t, shortList)
	held := graph.Entity{Name: "seats/bg-and-stepney", Kind: graph.KindSeat, DisplayName: "Bethnal Green & Stepney",
		Aliases: []string{"Bethnal Green Stepney"}, Description: "Created in 2024.", Identifiers: graph.Identifiers{"ocd": {stp}, "wikidata": {"Q1"}}}
	ward := graph.Entity{Name: "seats/weavers", Kind: graph.KindSeat, DisplayName: "Weavers", Description: "Ward of Tower Hamlets."}
	party := graph.Entity{Name: "parties/luton-south", Kind: graph.KindParty, DisplayName: "Luton South party"}
	known := Known{ByOCD: map[string][]graph.Entity{stp: {held}},
		ByName: map[graph.EntityName]graph.Entity{ward.Name: ward, party.Name: party}}
	ds, err := l.Dataset(known)
	if err != nil {
		t.Fatal(err)
	}
	got := map[graph.EntityName]graph.Entity{}
	for _, e := range ds.Entities {
		got[e.Name] = e
	}
	merged := graph.Entity{Name: "seats/bg-and-stepney", Kind: graph.KindSeat, DisplayName: "Bethnal Green & Stepney",
		Aliases: []string{"Bethnal Green Stepney", "Bethnal Green and Stepney"}, Description: "Created in 2024.",
		Identifiers: graph.Identifiers{"ocd": {stp}, "wikidata": {"Q1"}}, ValidFrom: graph.FuzzyDate{Year: 2024, Month: 7, Day: 4}}
	if !reflect.DeepEqual(merged, got[merged.Name]) {
		t.Errorf("merged seat:\nwant %+v\n got %+v", merged, got[merged.Name])
	}
	for _, name := range []graph.EntityName{"seats/bethnal-green-and-stepney", "seats/weavers", "seats/luton-south"} {
		if _, ok := got[name]; ok {
			t.Errorf("the import writes %s, which it should have left alone", name)
		}
	}
	for _, name := range []graph.EntityName{"seats/weavers-uki", "seats/luton-south-ukh"} {
		if _, ok := got[name]; !ok {
			t.Errorf("the import does not write %s", name)
		}
	}
	var rels []graph.RelationName
	for _, r := range ds.Relations {
		rels = append(rels, r.Name)
	}
	wantRels := []graph.RelationName{"relations/bethnal-green-and-bow.succeeded-by.bg-and-stepney",
		"relations/luton-south-ukh.succeeded-by.luton-south-and-south-bedfordshire"}
	if !reflect.DeepEqual(wantRels, rels) {
		t.Errorf("relations: want %v, got %v", wantRels, rels)
	}

	// A second import finds every seat of the first by its OCD id and changes nothing.
	after := Known{ByOCD: map[string][]graph.Entity{}, ByName: map[graph.EntityName]graph.Entity{}}
	for _, e := range ds.Entities {
		after.ByOCD[e.Identifiers.First("ocd")] = []graph.Entity{e}
	}
	again, err := l.Dataset(after)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ds, again) {
		t.Errorf("a second import differs from the first:\nfirst  %+v\nsecond %+v", ds, again)
	}
}

func TestDatasetProblems(t *testing.T) {
	t.Parallel()
	l := mustRead(t, shortList)
	seat := func(name string) graph.Entity {
		return graph.Entity{Name: graph.EntityName(name), Kind: graph.KindSeat, DisplayName: name}
	}
	for _, tc := range []struct {
		name  string
		known Known
		want  string
	}{
		{"id held twice", Known{ByOCD: map[string][]graph.Entity{stp: {seat("seats/a"), seat("seats/b")}}},
			"list.csv:3: id: " + stp + " is held by 2 entities in the graph (seats/a, seats/b)"},
		{"id held by a party", Known{ByOCD: map[string][]graph.Entity{stp: {{Name: "parties/p", Kind: graph.KindParty}}}},
			"list.csv:3: id: " + stp + " is held by parties/p, which is not a seat"},
		{"every name taken", Known{ByName: map[graph.EntityName]graph.Entity{
			"seats/weavers": seat("seats/weavers"), "organisations/weavers-uki": {Name: "organisations/weavers-uki", Kind: graph.KindOrganisation}}},
			"list.csv:6: id: every name for this seat is taken by another entity: weavers, weavers-uki"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := l.Dataset(tc.known)
			var ge *graph.Error
			if !errors.As(err, &ge) || ge.Kind != graph.Invalid {
				t.Fatalf("Dataset = %v, %v; want an Invalid error", ds, err)
			}
			if len(ge.Violations) != 1 || !strings.HasPrefix(ge.Violations[0].Field+": "+ge.Violations[0].Description, tc.want) {
				t.Errorf("problems %+v, want %q", ge.Violations, tc.want)
			}
		})
	}
}
