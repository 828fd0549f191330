package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph/graphtest"
)

// The Scottish Parliament's Popolo file goes in without hand conversion; a second import changes
// nothing; two MSPs are then joined through their party and through a seat, each hop with its
// membership's role and term; people are found by their Wikidata ids and show their attributes.
func TestImportPopoloTwiceChangesNothingAndPathsFollowTheParty(t *testing.T) {
	path := graphtest.SharedPath(t, "data", "popolo", "scotland-parliament.json")
	var out bytes.Buffer
	if err := realMain(context.Background(), append([]string{"import", "popolo", path}, dgraphFlags()...), &out, &out); err != nil {
		t.Fatalf("import: %v\n%s", err, out.String())
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

	resp, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "actors/nicola-sturgeon", To: "actors/alex-salmond", MaxPaths: 5, FollowVia: true})
	if err != nil {
		t.Fatal(err)
	}
	throughParty, throughSeat := false, false
	for _, p := range resp.GetPaths() {
		for i, h := range p.GetHops() {
			r := h.GetRelation()
			if r.GetRole() != "Member of the Scottish Parliament" || !strings.HasPrefix(r.GetTerm(), "organisations/scottish-parliament-term-") {
				t.Errorf("hop %d of %v: role %q, term %q", i, p.GetEntities(), r.GetRole(), r.GetTerm())
			}
			if len(r.GetClaims()) != 1 || r.GetClaims()[0].GetRecordId() == "" || r.GetClaims()[0].GetSource().GetKind() != pb.SourceKind_SOURCE_KIND_DATASET {
				t.Errorf("hop %d of %v: claims %v, want one from the dataset with its record", i, p.GetEntities(), r.GetClaims())
			}
		}
		ents := p.GetEntities()
		if len(ents) == 3 && ents[1] == "parties/scottish-national-party" && p.GetHops()[0].GetThroughVia() && p.GetHops()[1].GetThroughVia() {
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
	for _, p := range plain.GetPaths() {
		for _, h := range p.GetHops() {
			if h.GetThroughVia() || slicesContains(p.GetEntities(), "parties/scottish-national-party") {
				t.Errorf("without follow_via a path goes through the party: %v", p.GetEntities())
			}
		}
	}
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
