package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/internal/formats"
)

// The Scottish Parliament's Popolo file goes in without hand conversion; a second import changes
// nothing; two MSPs are then joined through their party and through a seat, each hop with its
// membership's role and term; people are found by their Wikidata ids and show their attributes.
func TestImportPopoloTwiceChangesNothingAndPathsFollowTheParty(t *testing.T) {
	path := filepath.Join("..", "..", "data", "popolo", "scotland-parliament.json")
	var out bytes.Buffer
	if err := realMain(context.Background(), append([]string{"import", "popolo", path}, dgraphFlags()...), &out, &out); err != nil {
		t.Fatalf("import: %v\n%s", err, out.String())
	}
	// The file's "Labour" is Scottish Labour (its other names say so), a branch of Labour: it merges with
	// the default graph's Scottish Labour, not with Labour, and is PART_OF Labour.
	for _, want := range []string{
		`organizations[3]: "Labour" is Scottish Labour Party, a branch of parties/labour`,
		"organizations[3]: merged with parties/scottish-labour (Scottish Labour) by a form of its name",
		`organizations[2]: skipped: "Independent" stands for no party`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the import does not say %s:\n%s", want, out.String())
		}
	}
	parties, err := client.SearchEntities(context.Background(), &pb.SearchEntitiesRequest{Query: "Conservative", Kinds: []pb.EntityKind{pb.EntityKind_ENTITY_KIND_PARTY}})
	if err != nil {
		t.Fatal(err)
	}
	var conservative []string
	for _, r := range parties.GetResults() {
		conservative = append(conservative, r.GetEntity().GetName())
	}
	if !slices.Equal(conservative, []string{"parties/conservatives"}) {
		t.Errorf("parties found as Conservative after the import: %v, want parties/conservatives alone", conservative)
	}
	if !strings.Contains(out.String(), "entities created") || !strings.Contains(out.String(), "loaded 1 sources") {
		t.Fatalf("the import does not report what it did:\n%s", out.String())
	}
	since := time.Now()
	out.Reset()
	if err := realMain(context.Background(), append([]string{"import", "popolo", path}, dgraphFlags()...), &out, &out); err != nil {
		t.Fatalf("second import: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "(new: 0 entities, 0 relations, 0 claims, 0 sources)") || !strings.Contains(out.String(), "0 entities created") {
		t.Errorf("the second import created something:\n%s", out.String())
	}
	admin := newWriter(t, "admin")
	changes, err := admin.w.ListChanges(admin.ctx, &pb.ListChangesRequest{Principal: "local", Since: timestamppb.New(since), PageSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes.GetChanges() {
		if c.GetMethod() == "import" {
			t.Errorf("the second import changed %s (%s)", c.GetResource(), c.GetAction())
		}
	}

	ctx := context.Background()
	e, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "wikidata:Q467112"})
	if err != nil {
		t.Fatalf("GetEntity by wikidata id: %v", err)
	}
	got := e.GetEntity()
	if got.GetName() != "actors/nicola-sturgeon" || got.GetBirthDate() != "1970-07-19" || got.GetGender() != "female" ||
		len(got.GetLinks()) != 40 || got.GetIdentifiers()["viaf"] != "19185030" || len(got.GetOtherNames()) == 0 {
		t.Errorf("GetEntity wikidata:Q467112 = %s %s %s, %d links, ids %v, %d other names", got.GetName(), got.GetBirthDate(),
			got.GetGender(), len(got.GetLinks()), got.GetIdentifiers(), len(got.GetOtherNames()))
	}

	for id, want := range map[string]string{"parlparse:uk.org.publicwhip/cons/10837": "seats/south-scotland",
		"everypolitician:cc093062-a4d6-45d8-9596-783eb01d1893": "actors/nicola-sturgeon", "popolo:scotland-parliament-popolo/term/4": "organisations/scottish-parliament-term-4"} {
		if e, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: id}); err != nil || e.GetEntity().GetName() != want {
			t.Errorf("GetEntity %s: %v %v, want %s", id, e.GetEntity().GetName(), err, want)
		}
	}
	// Brian Adam died in 2013, during the open-ended fourth term: as of 2014 he holds no seat, and is no
	// longer his party's member either.
	for year, want := range map[string]int{"2012": 2, "2014": 0} {
		rels, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "actors/brian-adam", Filter: &pb.RelationFilter{AsOf: year}})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(rels.GetRelations()); n != want {
			t.Errorf("as of %s, Brian Adam has %d relations, want %d", year, n, want)
		}
	}
	resp, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "actors/nicola-sturgeon", To: "actors/alex-salmond", MaxPaths: 5, FollowVia: true})
	if err != nil {
		t.Fatal(err)
	}
	throughParty, throughSeat := false, false
	for _, p := range resp.GetPaths() {
		for i, h := range p.GetHops() {
			r := h.GetRelation()
			role := "Member of the Scottish Parliament"
			if r.GetType() == pb.RelationType_RELATION_TYPE_MEMBER_OF {
				role = "" // their party's membership, for the term they sat for it
			}
			if r.GetRole() != role || !strings.HasPrefix(r.GetTerm(), "organisations/scottish-parliament-term-") {
				t.Errorf("hop %d of %v: role %q, term %q", i, p.GetEntities(), r.GetRole(), r.GetTerm())
			}
			if len(r.GetClaims()) != 1 || r.GetClaims()[0].GetRecordId() == "" || r.GetClaims()[0].GetSource().GetKind() != pb.SourceKind_SOURCE_KIND_DATASET {
				t.Errorf("hop %d of %v: claims %v, want one from the dataset with its record", i, p.GetEntities(), r.GetClaims())
			}
		}
		ents := p.GetEntities()
		if len(ents) == 3 && ents[1] == "parties/scottish-national-party" {
			throughParty = true
		}
		for i, n := range ents {
			if strings.HasPrefix(n, "seats/") && !p.GetHops()[i-1].GetThroughVia() && !p.GetHops()[i].GetThroughVia() {
				throughSeat = true
			}
		}
	}
	if !throughParty || !throughSeat {
		t.Errorf("routes through the party: %v, through a seat: %v; want both:\n%v", throughParty, throughSeat, resp.GetPaths())
	}
	plain, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "actors/nicola-sturgeon", To: "actors/alex-salmond", MaxPaths: 5})
	if err != nil {
		t.Fatal(err)
	}
	// Without follow_via the party is still on a route: they are its members.
	viaParty := false
	for _, p := range plain.GetPaths() {
		for _, h := range p.GetHops() {
			if h.GetThroughVia() {
				t.Errorf("without follow_via a hop goes through a via: %v", p.GetEntities())
			}
		}
		viaParty = viaParty || len(p.GetEntities()) == 3 && p.GetEntities()[1] == "parties/scottish-national-party"
	}
	if !viaParty {
		t.Errorf("without follow_via no route through the party the two are members of:\n%v", plain.GetPaths())
	}
	// The same file under another name is the same records: no entity is new (a dry run, which resolves
	// against the graph and writes nothing).
	copied := filepath.Join(t.TempDir(), "holyrood.json")
	if b, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(copied, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	dry := filepath.Join(t.TempDir(), "holyrood.jsonl")
	if err := realMain(context.Background(), append([]string{"import", "popolo", "--dry-run", dry, copied}, dgraphFlags()...), &out, &out); err != nil {
		t.Fatalf("import of a copy: %v\n%s", err, out.String())
	}
	if !slices.ContainsFunc(strings.Split(out.String(), "\n"), func(l string) bool { return strings.HasPrefix(l, "0 entities created,") }) {
		t.Errorf("the file imported under another name would create entities:\n%s", out.String())
	}
}

// exportFile asks ExportGraph and returns the whole file and its media type.
func exportFile(t *testing.T, req *pb.ExportGraphRequest) ([]byte, string) {
	t.Helper()
	stream, err := client.ExportGraph(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	media := ""
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return buf.Bytes(), media
		}
		if err != nil {
			t.Fatal(err)
		}
		if media == "" {
			media = msg.GetMediaType()
		}
		buf.Write(msg.GetData())
	}
}

// exportAll reads the whole graph back through ExportGraph in polgraph's format.
func exportAll(t *testing.T) *dataset.Dataset {
	t.Helper()
	file, _ := exportFile(t, &pb.ExportGraphRequest{Format: "polgraph",
		Filter: &pb.RelationFilter{Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_ALLEGED, pb.ClaimStatus_CLAIM_STATUS_REPORTED,
			pb.ClaimStatus_CLAIM_STATUS_CONFIRMED, pb.ClaimStatus_CLAIM_STATUS_DENIED}}})
	ds, err := dataset.Read([]dataset.File{{Name: "export.jsonl", R: bytes.NewReader(file)}})
	if err != nil {
		t.Fatalf("the export is not a valid dataset: %v", err)
	}
	return ds
}

// Records imported from Popolo and FollowTheMoney come back out of Dgraph with every field: what
// --dry-run says an import writes is what the graph then holds, attributes, ids, terms, record ids and
// dataset sources included.
func TestImportedRecordsKeepEveryFieldInDgraph(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
	}{
		{"popolo", []string{"import", "popolo", filepath.Join("..", "..", "data", "popolo", "wales-assembly.json")}},
		{"ftm", []string{"import", "ftm", "--title", "Example PEPs", "--publisher", "Example Data Ltd", "--url", "https://data.example.org/peps",
			"--retrieved", "2026-11-30", "--licence", "CC-BY-4.0", filepath.Join("..", "..", "graph", "ftm", "testdata", "sample.ftm.json")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".jsonl")
			var log bytes.Buffer
			if err := realMain(context.Background(), append(append(slices.Clone(c.args), "--dry-run", out), dgraphFlags()...), &log, &log); err != nil {
				t.Fatalf("dry run: %v\n%s", err, log.String())
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := dataset.Read([]dataset.File{{Name: out, R: f}})
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if err := realMain(context.Background(), append(slices.Clone(c.args), dgraphFlags()...), &log, &log); err != nil {
				t.Fatalf("import: %v\n%s", err, log.String())
			}
			got := exportAll(t)
			ents := map[graph.EntityName]graph.Entity{}
			for _, e := range got.Entities {
				ents[e.Name] = e
			}
			for _, e := range want.Entities {
				if diff := cmp.Diff(e, ents[e.Name]); diff != "" {
					t.Errorf("%s (-imported +read back):\n%s", e.Name, diff)
				}
			}
			rels := map[graph.RelationName]graph.Relation{}
			for _, r := range got.Relations {
				rels[r.Name] = r
			}
			for _, r := range want.Relations {
				back := rels[r.Name]
				// Claims come back with their whole source; the dataset names it.
				for i := range back.Claims {
					back.Claims[i].Source = graph.Source{Name: back.Claims[i].Source.Name}
				}
				if diff := cmp.Diff(r, back); diff != "" {
					t.Errorf("%s (-imported +read back):\n%s", r.Name, diff)
				}
			}
			srcs := map[graph.SourceName]graph.Source{}
			for _, s := range got.Sources {
				srcs[s.Name] = s
			}
			for _, s := range want.Sources {
				if diff := cmp.Diff(s, srcs[s.Name]); diff != "" {
					t.Errorf("%s (-imported +read back):\n%s", s.Name, diff)
				}
			}
			if c.name == "ftm" && (want.Sources[0].Licence != "CC-BY-4.0" || want.Sources[0].Retrieved.String() != "2026-11-30") {
				t.Errorf("the source does not carry the flags: %+v", want.Sources[0])
			}
		})
	}
}

// ExportGraph answers in every format, for a neighbourhood, with the evidence.
func TestExportGraphFormats(t *testing.T) {
	for _, format := range formats.Names {
		t.Run(format, func(t *testing.T) {
			file, media := exportFile(t, &pb.ExportGraphRequest{Format: format, Center: "actors/lutfur-rahman", Depth: 1})
			text := string(file)
			if media != formats.MediaType(format) {
				t.Errorf("media type %q, want %q", media, formats.MediaType(format))
			}
			// Every format names the centre and carries an excerpt of the Daily Mail's claims.
			for _, want := range []string{"lutfur-rahman", "Tower Hamlets"} {
				if !strings.Contains(text, want) {
					t.Errorf("the %s export does not mention %q", format, want)
				}
			}
			if format != "ftm" && format != "popolo" && !strings.Contains(text, "Daily Mail") {
				t.Errorf("the %s export carries no source", format)
			}
		})
	}
	stream, err := client.ExportGraph(context.Background(), &pb.ExportGraphRequest{Format: "pdf"})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(violations(t, err)["format"], `"pdf" is not a format`) {
		t.Errorf("an unknown format: %v, want INVALID_ARGUMENT naming the field", err)
	}
}

// An editor imports Popolo through a running polgraph: the graph is read through the API, the records
// sent as a Load, and a second import changes nothing.
func TestImportPopoloThroughTheServer(t *testing.T) {
	w := newWriter(t, "editor")
	tag := w.slug("msp")
	doc := `{"persons":[{"id":"` + tag + `-1","name":"Ada ` + tag + `","identifiers":[{"scheme":"wikidata","identifier":"Q9` + fmt.Sprint(len(tag)) + `01"}],"birth_date":"1960"},
	                   {"id":"` + tag + `-2","name":"Bea ` + tag + `"}],
	 "organizations":[{"id":"leg","name":"Assembly ` + tag + `","classification":"legislature"},{"id":"p","name":"Party ` + tag + `","classification":"party"}],
	 "areas":[{"id":"a1","name":"Area ` + tag + `","type":"constituency"}],
	 "events":[{"id":"term/1","name":"First","classification":"legislative period","organization_id":"leg","start_date":"2011-05-05","end_date":"2016-05-04"}],
	 "memberships":[{"person_id":"` + tag + `-1","organization_id":"leg","area_id":"a1","on_behalf_of_id":"p","legislative_period_id":"term/1","role":"member"},
	                {"person_id":"` + tag + `-2","organization_id":"leg","area_id":"a1","on_behalf_of_id":"p","legislative_period_id":"term/1","role":"member","start_date":"2014-01-01"}]}`
	path := filepath.Join(t.TempDir(), tag+".json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POLGRAPH_API_KEY", w.key)
	var out bytes.Buffer
	if err := realMain(context.Background(), []string{"import", "popolo", "--server", serverAddr, path}, &out, &out); err != nil {
		t.Fatalf("import --server: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "6 entities created, 0 merged") || !strings.Contains(out.String(), "loaded 1 sources, 6 entities, 6 relations, 6 claims through") {
		t.Errorf("the import says:\n%s", out.String())
	}
	since := time.Now()
	out.Reset()
	if err := realMain(context.Background(), []string{"import", "popolo", "--server", serverAddr, path}, &out, &out); err != nil {
		t.Fatalf("second import --server: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "0 entities created, 6 merged") {
		t.Errorf("the second import says:\n%s", out.String())
	}
	changes, err := w.w.ListChanges(w.ctx, &pb.ListChangesRequest{Principal: w.keyID, Since: timestamppb.New(since), PageSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(changes.GetChanges()); n != 0 {
		t.Errorf("the second import made %d changes, first %s", n, changes.GetChanges()[0].GetResource())
	}
	resp, err := client.FindPaths(context.Background(), &pb.FindPathsRequest{From: "Ada " + tag, To: "Bea " + tag, FollowVia: true, MaxPaths: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetPaths()) != 2 {
		t.Errorf("want a route through the area and one through the party: %v", resp.GetPaths())
	}
	// Another file names Ada with an honorific and no id: through the server, as reading Dgraph, her
	// birth year makes it her (a dry run: nothing written).
	other := filepath.Join(t.TempDir(), tag+"-other.json")
	if err := os.WriteFile(other, []byte(`{"persons":[{"id":"x1","name":"Dr Ada `+tag+`","birth_date":"1960-02-03"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := realMain(context.Background(), []string{"import", "popolo", "--server", serverAddr, "--dry-run", filepath.Join(t.TempDir(), "dry.jsonl"), other}, &out, &out); err != nil {
		t.Fatalf("import --server of another file: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "persons[0]: merged with actors/ada-"+tag+" (Ada "+tag+") by a near form of its name") {
		t.Errorf("Dr Ada was not merged with Ada through the server:\n%s", out.String())
	}
}

// FollowTheMoney through a running polgraph; then the routes between two of its people export as
// Popolo and FollowTheMoney with the relations on them.
func TestImportFtMThroughTheServerAndExportAPathAnswer(t *testing.T) {
	w := newWriter(t, "editor")
	tag := w.slug("ftm")
	lines := []string{
		`{"id":"` + tag + `-p1","schema":"Person","properties":{"name":["Cora ` + tag + `"],"birthDate":["1971-02-03"],"email":["cora@example.org"]}}`,
		`{"id":"` + tag + `-p2","schema":"Person","properties":{"name":["Dan ` + tag + `"]}}`,
		`{"id":"` + tag + `-co","schema":"Company","properties":{"name":["Firm ` + tag + `"],"registrationNumber":["` + tag + `"]}}`,
		`{"id":"` + tag + `-d1","schema":"Directorship","properties":{"director":["` + tag + `-p1"],"organization":["` + tag + `-co"],"role":["Chair"],"startDate":["2010-01-01"]}}`,
		`{"id":"` + tag + `-e1","schema":"Employment","properties":{"employee":["` + tag + `-p2"],"employer":["` + tag + `-co"],"startDate":["2012"]}}`,
	}
	path := filepath.Join(t.TempDir(), tag+".ftm.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POLGRAPH_API_KEY", w.key)
	var out bytes.Buffer
	if err := realMain(context.Background(), []string{"import", "ftm", "--server", serverAddr, path}, &out, &out); err != nil {
		t.Fatalf("import ftm --server: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "5 records read: 3 entities, 2 relations, 0 skipped") || !strings.Contains(out.String(), "loaded 1 sources, 3 entities, 2 relations, 2 claims through") {
		t.Errorf("the import says:\n%s", out.String())
	}
	for _, format := range []string{"popolo", "ftm"} {
		file, _ := exportFile(t, &pb.ExportGraphRequest{Format: format, From: "Cora " + tag, To: "Dan " + tag})
		for _, want := range []string{"Cora " + tag, "Dan " + tag, "Firm " + tag, "cora@example.org", "1971-02-03", "Chair"} {
			if format == "popolo" && want == "Chair" {
				want = `"role": "employee"` // Popolo holds memberships (the employment); LEADS has no Popolo shape
			}
			if !strings.Contains(string(file), want) {
				t.Errorf("the %s export of the path answer lacks %q:\n%s", format, want, file)
			}
		}
	}
}
