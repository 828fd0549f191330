package review_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/intake"
	"github.com/polgraph/polgraph/graph/review"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// The review queue's tests run the Service on a real Dgraph, started closed as `polgraph run` starts it
// (the store logs in as polgraph's own user, so a predicate that user may not use fails here), with the
// graph Service reading the same database. Each test names its entities after itself (fixture.tag), so
// that tests share the database without seeing each other's data.

var (
	dgraphOnce sync.Once
	shared     struct {
		store *dgraph.Store
		err   error
		stop  func()
	}
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	os.Exit(code)
}

// fixture is one test's view of the shared Dgraph: the review service, the graph's reads, and a few
// entities of its own in the graph.
type fixture struct {
	t      *testing.T
	tag    string
	store  *dgraph.Store
	svc    *review.Service
	graph  *service.Service
	intake *intake.Service
	// Entities of the test in the graph: two actors, a party and a seat.
	ann, bob, party, seat graph.EntityName
	source                graph.SourceName
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Dgraph; skipped under -short")
	}
	dgraphOnce.Do(func() {
		ctx := context.Background()
		d, stop, err := dgraphlocal.ForTests(ctx)
		if err != nil {
			shared.err = err
			return
		}
		shared.stop = stop
		if shared.err = d.Reset(ctx); shared.err != nil {
			return
		}
		log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		if shared.store, shared.err = dgraph.Open(ctx, d.Service, log); shared.err != nil {
			return
		}
		shared.err = shared.store.ApplySchema(ctx)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	tag := graph.Slugify(strings.TrimPrefix(t.Name(), "Test"))
	in := &intake.Service{Store: shared.store, Timeout: time.Minute}
	f := &fixture{t: t, tag: tag, store: shared.store, intake: in,
		svc:   &review.Service{Queue: shared.store.Queue(), Intake: in, Timeout: time.Minute},
		graph: &service.Service{Store: shared.store},
		ann:   graph.EntityName("actors/" + tag + "-ann"), bob: graph.EntityName("actors/" + tag + "-bob"),
		party: graph.EntityName("parties/" + tag + "-party"), seat: graph.EntityName("seats/" + tag + "-seat"),
		source: graph.SourceName("sources/" + tag + "-gazette")}
	name := strings.ReplaceAll(tag, "-", "")
	f.upsert("sources", map[string]any{"record": "source", "name": f.source, "title": "Gazette", "kind": "ARTICLE"})
	f.upsert("entities",
		map[string]any{"record": "entity", "name": f.ann, "display_name": "Ann " + name},
		map[string]any{"record": "entity", "name": f.bob, "display_name": "Bob " + name},
		map[string]any{"record": "entity", "name": f.party, "display_name": "Party " + name},
		map[string]any{"record": "entity", "name": f.seat, "display_name": "Seat " + name})
	f.upsert("relations", map[string]any{"record": "relation", "type": "MEMBER_OF", "from": f.ann, "to": f.party,
		"role": "councillor", "valid_from": "2010", "valid_to": "2012",
		"claims": []map[string]any{{"source": f.source, "excerpt": "Ann was a member.", "confidence": 0.9, "status": "REPORTED"}}})
	return f
}

func (f *fixture) upsert(field string, records ...map[string]any) {
	f.t.Helper()
	var lines []string
	for _, r := range records {
		b, err := json.Marshal(r)
		if err != nil {
			f.t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if _, err := f.intake.Upsert(context.Background(), graph.WriteMeta{Principal: "test", Method: "Upsert"}, intake.Batch{Field: field, Lines: lines}); err != nil {
		f.t.Fatal(err)
	}
}

// prop is a proposal as a test writes it: the sentence is the excerpt, placed in the document's text.
type prop struct {
	typ        graph.RelationType
	from, to   graph.EntityName
	status     graph.ClaimStatus
	confidence float64
	sentence   string
	date       string
	saidBy     graph.EntityName
}

// reading builds what the pipeline would read from a text made of the proposals' sentences.
func reading(title string, entities []review.Entity, props ...prop) review.Reading {
	var text strings.Builder
	text.WriteString(title + ".")
	var ps []review.Proposal
	for _, p := range props {
		text.WriteString(" ")
		start := text.Len()
		text.WriteString(p.sentence)
		d, _ := graph.ParseFuzzyDate(p.date)
		rp := review.Proposal{Type: p.typ, From: p.from, To: p.to, Status: p.status, Confidence: p.confidence, Excerpt: p.sentence,
			Span: review.Span{Start: start, End: text.Len()}, Date: d, SaidBy: p.saidBy, Rule: "test"}
		rp.ID = review.ProposalID(rp.Signature())
		ps = append(ps, rp)
	}
	doc := review.Document{Text: text.String(), Format: "text", Path: title + ".txt",
		Source: graph.Source{Title: title, Outlet: "Test Gazette"}}
	doc.Hash = review.HashText(doc.Text)
	for i := range ps {
		ps[i].Document = doc.Hash
	}
	return review.Reading{Document: doc, Entities: entities, Proposals: ps}
}

func reviewer(name string) graph.WriteMeta { return graph.WriteMeta{Principal: name, Method: "test"} }

func (f *fixture) submit(r review.Reading) review.SubmitResult {
	f.t.Helper()
	res, err := f.svc.Submit(context.Background(), reviewer("ingest"), r)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func (f *fixture) proposal(id string) review.Proposal {
	f.t.Helper()
	got, err := f.store.Queue().GetProposals(context.Background(), []string{id})
	if err != nil {
		f.t.Fatal(err)
	}
	p, ok := got[id]
	if !ok {
		f.t.Fatalf("%s is not in the queue", id)
	}
	return p
}

func ids(ps []review.Proposal) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// kindOf fails the test unless err is a *graph.Error of kind k naming each field; it returns the
// violations by field.
func kindOf(t *testing.T, err error, k graph.ErrorKind, fields ...string) map[string]string {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s", k)
	}
	if graph.KindOf(err) != k {
		t.Fatalf("%v: kind %s, want %s", err, graph.KindOf(err), k)
	}
	var ge *graph.Error
	out := map[string]string{}
	if e, ok := err.(*graph.Error); ok {
		ge = e
		for _, v := range ge.Violations {
			out[v.Field] += v.Description
		}
	}
	for _, f := range fields {
		if _, ok := out[f]; !ok {
			t.Errorf("%v names no %q; it names %v", err, f, out)
		}
	}
	return out
}

func TestSubmitQueuesADocumentOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	newcomer := graph.EntityName("actors/" + f.tag + "-newcomer")
	r := reading("Election night", []review.Entity{{Name: newcomer, Kind: graph.KindActor, DisplayName: "Nia Newcomer", Aliases: []string{"Ms Newcomer", "Nia Newcomer", ""}}},
		prop{graph.Endorses, f.ann, f.bob, graph.StatusReported, 0.8, "Ann endorsed Bob.", "2024-07", ""},
		prop{graph.Criticised, newcomer, f.ann, graph.StatusAlleged, 0.6, "Nia is said to have attacked Ann.", "", f.bob},
		prop{graph.MemberOf, newcomer, f.party, graph.StatusReported, 0.7, "Nia joined the party.", "", ""})

	first := f.submit(r)
	if diff := cmp.Diff(review.SubmitResult{Document: r.Document.Hash, Proposals: 3, Entities: 1}, first); diff != "" {
		t.Errorf("first submission (-want +got):\n%s", diff)
	}
	second := f.submit(r)
	if diff := cmp.Diff(review.SubmitResult{Document: r.Document.Hash, AlreadyRead: true}, second); diff != "" {
		t.Errorf("second submission (-want +got):\n%s", diff)
	}

	// Listed by document, in the order of the text, pending, with the source the claims will cite.
	ps, next, total, err := f.svc.ListProposals(ctx, review.ProposalFilter{Document: r.Document.Hash[:10]}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ids(r.Proposals), ids(ps)); diff != "" || next != 0 || total != 3 {
		t.Errorf("proposals of the document (-want +got):\n%s\nnext %d, total %d", diff, next, total)
	}
	for _, p := range ps {
		if p.State != review.Pending || p.Document != r.Document.Hash || p.Rule != "test" {
			t.Errorf("%s: state %s, document %s, rule %q", p.ID, p.State, p.Document, p.Rule)
		}
	}
	if got := ps[1]; got.SaidBy != f.bob || got.Span != r.Proposals[1].Span || got.Excerpt != "Nia is said to have attacked Ann." {
		t.Errorf("the second proposal came back as %+v", got)
	}
	// By entity, state and type.
	for _, tc := range []struct {
		name   string
		filter review.ProposalFilter
		want   []string
	}{
		{"naming the newcomer", review.ProposalFilter{Entity: newcomer}, ids(r.Proposals[1:])},
		{"saying who said it", review.ProposalFilter{Entity: f.bob, Type: graph.Criticised}, ids(r.Proposals[1:2])},
		{"endorsements", review.ProposalFilter{Document: r.Document.Hash, Type: graph.Endorses, State: review.Pending}, ids(r.Proposals[:1])},
		{"approved ones", review.ProposalFilter{Document: r.Document.Hash, State: review.Approved}, []string{}},
	} {
		got, _, _, err := f.svc.ListProposals(ctx, tc.filter, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}

	view, err := f.svc.GetDocument(ctx, "documents/"+r.Document.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if view.Document.Text != r.Document.Text || view.Document.Source.Name != review.SourceNameFor(r.Document.Hash) ||
		view.Document.Source.Title != "Election night" || view.Document.Source.Kind != graph.SourceArticle || view.Document.Ingested.IsZero() {
		t.Errorf("the document came back as %+v", view.Document)
	}
	if len(view.Proposals) != 3 || len(view.Entities) != 1 {
		t.Fatalf("the document view has %d proposals and %d entities; want 3 and 1", len(view.Proposals), len(view.Entities))
	}
	wantEntity := review.Entity{Name: newcomer, Kind: graph.KindActor, DisplayName: "Nia Newcomer", Aliases: []string{"Ms Newcomer"},
		Document: r.Document.Hash, State: review.Pending}
	if diff := cmp.Diff(wantEntity, view.Entities[0]); diff != "" {
		t.Errorf("the proposed entity (-want +got):\n%s", diff)
	}
	// The same document by the source name its claims will cite.
	if v2, err := f.svc.GetDocument(ctx, string(review.SourceNameFor(r.Document.Hash))); err != nil || v2.Document.Hash != r.Document.Hash {
		t.Errorf("by source name: %v, %s", err, v2.Document.Hash)
	}
	docs, _, total, err := f.svc.ListDocuments(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(docs, func(d review.DocumentSummary) bool { return d.Document.Hash == r.Document.Hash })
	if i < 0 || total < 1 {
		t.Fatalf("ListDocuments does not list the document (total %d)", total)
	}
	if docs[i].Document.Text != "" || docs[i].Proposals[review.Pending] != 3 {
		t.Errorf("the document's summary: %+v", docs[i])
	}
	ents, _, _, err := f.svc.ListProposedEntities(ctx, review.EntityFilter{Document: r.Document.Hash}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]review.Entity{wantEntity}, ents); diff != "" {
		t.Errorf("ListProposedEntities (-want +got):\n%s", diff)
	}
}

func TestSubmitRefusesWhatIsNotAReading(t *testing.T) {
	f := newFixture(t)
	good := func() review.Reading {
		return reading("Refusals", nil, prop{graph.Endorses, f.ann, f.bob, graph.StatusReported, 0.8, "Ann endorsed Bob.", "", ""})
	}
	for _, tc := range []struct {
		name   string
		change func(*review.Reading)
		fields []string
	}{
		{"no text", func(r *review.Reading) { r.Document.Text = "" }, []string{"document.text"}},
		{"a hash that is not the text's", func(r *review.Reading) { r.Document.Hash = strings.Repeat("0", 64) }, []string{"document.hash"}},
		{"an unknown type", func(r *review.Reading) { r.Proposals[0].Type = "LIKES"; r.Proposals[0].ID = "" }, []string{"proposals[0].type"}},
		{"a type that does not join the kinds", func(r *review.Reading) {
			r.Proposals[0].Type = graph.HoldsOffice
			r.Proposals[0].To = f.party
			r.Proposals[0].ID = ""
		},
			[]string{"proposals[0].type"}},
		{"an end nobody knows", func(r *review.Reading) { r.Proposals[0].To = "actors/" + graph.EntityName(f.tag) + "-nobody" }, []string{"proposals[0].to"}},
		{"a bad status and confidence", func(r *review.Reading) { r.Proposals[0].Status = "MAYBE"; r.Proposals[0].Confidence = 2 },
			[]string{"proposals[0].status", "proposals[0].confidence"}},
		{"a span outside the text", func(r *review.Reading) { r.Proposals[0].Span = review.Span{Start: 5, End: 5000} }, []string{"proposals[0].span"}},
		{"an excerpt too long", func(r *review.Reading) { r.Proposals[0].Excerpt = strings.Repeat("word ", 200) }, []string{"proposals[0].excerpt"}},
		{"an event with a term", func(r *review.Reading) {
			r.Proposals[0].Date, _ = graph.ParseFuzzyDate("2020")
			r.Proposals[0].ValidFrom, _ = graph.ParseFuzzyDate("2019")
		}, []string{"proposals[0].date"}},
		{"an entity of the wrong kind", func(r *review.Reading) {
			r.Entities = []review.Entity{{Name: "parties/" + graph.EntityName(f.tag) + "-x", Kind: graph.KindActor, DisplayName: "X"}}
		}, []string{"entities[0].kind"}},
		{"an entity without a name to show", func(r *review.Reading) {
			r.Entities = []review.Entity{{Name: "actors/" + graph.EntityName(f.tag) + "-y"}}
		}, []string{"entities[0].display_name"}},
		{"an entity whose name hides a character", func(r *review.Reading) {
			r.Entities = []review.Entity{{Name: "actors/" + graph.EntityName(f.tag) + "-z", DisplayName: "Keir\u200b Starmer"}}
		}, []string{"entities[0].display_name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := good()
			tc.change(&r)
			_, err := f.svc.Submit(context.Background(), reviewer("ingest"), r)
			kindOf(t, err, graph.Invalid, tc.fields...)
		})
	}
	// Nothing of those was queued.
	if ps, _, _, err := f.svc.ListProposals(context.Background(), review.ProposalFilter{Entity: f.ann}, 0, 0); err != nil || len(ps) != 0 {
		t.Errorf("refused readings queued %d proposals (%v)", len(ps), err)
	}
}

func TestRejectedProposalIsNotProposedAgain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sentence := prop{graph.Endorses, f.ann, f.bob, graph.StatusReported, 0.8, "Ann endorsed Bob.", "", ""}
	r1 := reading("First report", nil, sentence, prop{graph.Criticised, f.bob, f.ann, graph.StatusReported, 0.7, "Bob criticised Ann.", "", ""})
	f.submit(r1)
	id := r1.Proposals[0].ID

	_, err := f.svc.Reject(ctx, reviewer("rita"), []string{id}, " ")
	kindOf(t, err, graph.Invalid, "reason")
	res, err := f.svc.Reject(ctx, reviewer("rita"), []string{id}, "a reader's comment, not the outlet's")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rejected) != 1 || res.Rejected[0].State != review.Rejected {
		t.Fatalf("Reject: %+v", res)
	}
	p := f.proposal(id)
	if p.State != review.Rejected || p.Reason != "a reader's comment, not the outlet's" || p.Reviewer != "rita" || p.Reviewed.IsZero() {
		t.Errorf("the rejected proposal: %+v", p)
	}
	// Rejecting again changes nothing; approving it is refused.
	res, err = f.svc.Reject(ctx, reviewer("sam"), []string{id}, "again")
	if err != nil || !slices.Equal(res.Unchanged, []string{id}) || f.proposal(id).Reviewer != "rita" {
		t.Errorf("a second rejection: %+v, %v, reviewer %s", res, err, f.proposal(id).Reviewer)
	}
	_, err = f.svc.Approve(ctx, reviewer("sam"), []string{r1.Proposals[1].ID, id})
	if v := kindOf(t, err, graph.FailedPrecondition, "ids[1]"); !strings.Contains(v["ids[1]"], "rejected") {
		t.Errorf("the refusal says %q", v["ids[1]"])
	}
	if p := f.proposal(r1.Proposals[1].ID); p.State != review.Pending {
		t.Errorf("a refused approval approved the other proposal: %s", p.State)
	}

	// Another document with the same sentence: the rejected reading is not proposed again.
	r2 := reading("Second report, same wire copy", nil, sentence, prop{graph.Endorses, f.bob, f.ann, graph.StatusAlleged, 0.5, "Bob is said to back Ann.", "", ""})
	if r2.Proposals[0].ID != id {
		t.Fatalf("the same reading has two ids: %s, %s", id, r2.Proposals[0].ID)
	}
	got := f.submit(r2)
	if got.Proposals != 1 || got.Repeated != 1 || got.AlreadyRead {
		t.Errorf("the second document: %+v; want 1 new proposal and 1 repeated", got)
	}
	if p := f.proposal(id); p.State != review.Rejected || p.Document != r1.Document.Hash || p.Reason == "" {
		t.Errorf("the rejected proposal after the second document: %+v", p)
	}
	if ps, _, _, _ := f.svc.ListProposals(ctx, review.ProposalFilter{Document: r2.Document.Hash}, 0, 0); len(ps) != 1 {
		t.Errorf("the second document has %d proposals; want 1", len(ps))
	}
}

// pathRelations are the relations of the answer FindPaths gives between two entities (none when it finds
// no path).
func (f *fixture) pathRelations(from, to graph.EntityName) []graph.RelationName {
	f.t.Helper()
	a, err := f.graph.FindPaths(context.Background(), graph.PathQuery{From: from, To: to, MaxDepth: 4})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []graph.RelationName
	for n := range a.Relations {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (f *fixture) neighbours(center graph.EntityName) []graph.EntityName {
	f.t.Helper()
	n, err := f.graph.ExploreNeighborhood(context.Background(), graph.NeighborhoodQuery{Center: string(center), Depth: 2})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []graph.EntityName
	for _, node := range n.Nodes {
		out = append(out, node.Entity.Name)
	}
	slices.Sort(out)
	return out
}

func (f *fixture) found(text string) []graph.EntityName {
	f.t.Helper()
	res, _, err := f.graph.Search(context.Background(), graph.SearchQuery{Text: text}, 10, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []graph.EntityName
	for _, r := range res {
		out = append(out, r.Entity.Name)
	}
	return out
}

func (f *fixture) exported() (ents []graph.EntityName, rels []graph.RelationName) {
	f.t.Helper()
	sub, err := f.graph.Export(context.Background(), graph.ExportQuery{})
	if err != nil {
		f.t.Fatal(err)
	}
	for _, e := range sub.Entities {
		ents = append(ents, e.Name)
	}
	for _, r := range sub.Relations {
		rels = append(rels, r.Name)
	}
	return ents, rels
}

func TestProposalsStayOutOfTheGraphUntilApproved(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ally := graph.EntityName("actors/" + f.tag + "-ally")
	name := "Zebedee Quarrington" // a name nothing else in the database has
	r := reading("An alliance", []review.Entity{{Name: ally, Kind: graph.KindActor, DisplayName: name}},
		prop{graph.CampaignedWith, f.bob, ally, graph.StatusReported, 0.9, "Bob campaigned with Zebedee.", "2024-06", ""},
		prop{graph.Endorses, ally, f.party, graph.StatusConfirmed, 0.95, "Zebedee backs the party, he said.", "2024-06-02", ally})
	endorses := graph.RelationNameFor(ally, graph.Endorses, f.party, "")
	campaigned := graph.RelationNameFor(f.bob, graph.CampaignedWith, ally, "")
	if ally < f.bob {
		campaigned = graph.RelationNameFor(ally, graph.CampaignedWith, f.bob, "")
	}

	statsBefore, err := f.graph.GraphStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entsBefore, relsBefore := f.exported()
	f.submit(r)

	// Pending: in no path, neighbourhood, search, count or export.
	if got := f.pathRelations(f.bob, f.party); len(got) != 0 {
		t.Errorf("a path from Bob to the party before approval uses %v", got)
	}
	if got := f.neighbours(f.party); slices.Contains(got, ally) || slices.Contains(got, f.bob) {
		t.Errorf("the party's neighbourhood before approval: %v", got)
	}
	if got := f.found(name); len(got) != 0 {
		t.Errorf("searching for the proposed entity finds %v", got)
	}
	if _, err := f.graph.GetEntity(ctx, string(ally), nil); graph.KindOf(err) != graph.NotFound {
		t.Errorf("GetEntity of the proposed entity: %v; want NotFound", err)
	}
	if _, _, err := f.graph.GetRelation(ctx, endorses); graph.KindOf(err) != graph.NotFound {
		t.Errorf("GetRelation of the proposed relation: %v; want NotFound", err)
	}
	statsAfter, err := f.graph.GraphStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(statsBefore, statsAfter); diff != "" {
		t.Errorf("queueing proposals changed the graph's statistics (-before +after):\n%s", diff)
	}
	entsAfter, relsAfter := f.exported()
	if !slices.Equal(entsBefore, entsAfter) || !slices.Equal(relsBefore, relsAfter) {
		t.Errorf("queueing proposals changed a whole-graph export: %d→%d entities, %d→%d relations",
			len(entsBefore), len(entsAfter), len(relsBefore), len(relsAfter))
	}

	res, err := f.svc.Approve(ctx, reviewer("key alice (keys/abc)"), ids(r.Proposals))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Approved) != 2 || !slices.Equal(res.Created, []graph.EntityName{ally}) || len(res.Write.Created) == 0 {
		t.Fatalf("Approve: %+v", res)
	}
	for _, p := range res.Approved {
		if p.State != review.Approved || p.Reviewer != "key alice (keys/abc)" || p.Relation == "" {
			t.Errorf("approved %+v", p)
		}
	}
	if got := f.proposal(r.Proposals[1].ID).Relation; got != endorses {
		t.Errorf("the endorsement went to %s; want %s", got, endorses)
	}
	// Now a path, a neighbour, a search hit, and the claim as the proposal had it.
	if got := f.pathRelations(f.bob, f.party); !slices.Equal(got, []graph.RelationName{endorses, campaigned}) && !slices.Equal(got, []graph.RelationName{campaigned, endorses}) {
		t.Errorf("the path from Bob to the party after approval uses %v; want %s and %s", got, campaigned, endorses)
	}
	if got := f.neighbours(f.party); !slices.Contains(got, ally) {
		t.Errorf("the party's neighbourhood after approval: %v", got)
	}
	if got := f.found(name); !slices.Equal(got, []graph.EntityName{ally}) {
		t.Errorf("searching for the new entity finds %v", got)
	}
	rel, _, err := f.graph.GetRelation(ctx, endorses)
	if err != nil {
		t.Fatal(err)
	}
	src := review.SourceNameFor(r.Document.Hash)
	wantClaims := []graph.Claim{{Name: graph.ClaimNameFor(endorses, src, strings.TrimPrefix(r.Proposals[1].ID, "proposals/")),
		Source:  graph.Source{Name: src, Title: "An alliance", Kind: graph.SourceArticle, Outlet: "Test Gazette"},
		Excerpt: "Zebedee backs the party, he said.", Confidence: 0.95, Status: graph.StatusConfirmed, SaidBy: ally}}
	if diff := cmp.Diff(wantClaims, rel.Claims); diff != "" {
		t.Errorf("the approved claim (-want +got):\n%s", diff)
	}
	if rel.Date.String() != "2024-06-02" {
		t.Errorf("the relation's date: %q", rel.Date)
	}
	// The trail names the reviewer.
	changes, _, err := f.store.ListChanges(ctx, graph.ChangeQuery{Resource: string(endorses), Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Principal != "key alice (keys/abc)" || changes[0].Method != "ApproveProposals" {
		t.Errorf("the trail of %s: %+v", endorses, changes)
	}
	// Approving again writes nothing.
	again, err := f.svc.Approve(ctx, reviewer("bob"), ids(r.Proposals))
	if err != nil || len(again.Approved) != 0 || len(again.Unchanged) != 2 {
		t.Errorf("a second approval: %+v, %v", again, err)
	}
	e, _ := f.store.Queue().GetProposedEntities(ctx, []graph.EntityName{ally})
	if e[ally].State != review.Approved {
		t.Errorf("the proposed entity after approval: %+v", e[ally])
	}
}

func TestApprovalKeepsTheGraphsRelation(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	member := graph.RelationNameFor(f.ann, graph.MemberOf, f.party, "")
	r := reading("Membership", nil,
		// Undated: a claim on the graph's relation, whose role and dates stay.
		prop{graph.MemberOf, f.ann, f.party, graph.StatusConfirmed, 0.9, "Ann is a party member.", "", ""},
		// Dated within the relation's time: the same relation.
		prop{graph.MemberOf, f.ann, f.party, graph.StatusReported, 0.8, "Ann was a member in 2011.", "2011", ""},
		// Another time: a relation of its own, keyed by the date.
		prop{graph.MemberOf, f.ann, f.party, graph.StatusReported, 0.7, "Ann rejoined in 2020.", "2020", ""},
		// Two events of one type between the same two: two relations.
		prop{graph.Criticised, f.bob, f.ann, graph.StatusReported, 0.7, "Bob attacked Ann in 2019.", "2019", ""},
		prop{graph.Criticised, f.bob, f.ann, graph.StatusReported, 0.7, "Bob attacked Ann again in 2021.", "2021", ""})
	f.submit(r)
	res, err := f.svc.Approve(ctx, reviewer("rita"), ids(r.Proposals))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]graph.RelationName{}
	for _, p := range res.Approved {
		targets[p.ID] = p.Relation
	}
	want := map[string]graph.RelationName{
		r.Proposals[0].ID: member, r.Proposals[1].ID: member, r.Proposals[2].ID: member + ".2020",
		r.Proposals[3].ID: graph.RelationNameFor(f.bob, graph.Criticised, f.ann, ""),
		r.Proposals[4].ID: graph.RelationNameFor(f.bob, graph.Criticised, f.ann, "2021"),
	}
	if diff := cmp.Diff(want, targets); diff != "" {
		t.Errorf("where the claims went (-want +got):\n%s", diff)
	}

	// Relations the graph keys (as the default graph keys its terms and events by year) take claims of
	// their time: a dated one by its date, an undated one by its document's publication.
	f.upsert("relations",
		map[string]any{"record": "relation", "type": "LEADS", "from": f.ann, "to": f.party, "key": "2015", "date": "2015",
			"claims": []map[string]any{{"source": f.source, "excerpt": "Ann led in 2015.", "confidence": 0.9, "status": "REPORTED"}}},
		map[string]any{"record": "relation", "type": "LEADS", "from": f.ann, "to": f.party, "key": "2022", "valid_from": "2022",
			"claims": []map[string]any{{"source": f.source, "excerpt": "Ann leads since 2022.", "confidence": 0.9, "status": "REPORTED"}}})
	dated := reading("Leaders then", nil, prop{graph.Leads, f.ann, f.party, graph.StatusReported, 0.8, "Ann led the party in June 2015.", "2015-06", ""})
	undated := reading("Leaders now", nil, prop{graph.Leads, f.ann, f.party, graph.StatusReported, 0.8, "Ann leads the party.", "", ""})
	undated.Document.Source.Published, _ = graph.ParseFuzzyDate("2023-05-04")
	f.submit(dated)
	f.submit(undated)
	res, err = f.svc.Approve(ctx, reviewer("rita"), []string{dated.Proposals[0].ID, undated.Proposals[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	leads := graph.RelationNameFor(f.ann, graph.Leads, f.party, "")
	if got := f.proposal(dated.Proposals[0].ID).Relation; got != leads+".2015" {
		t.Errorf("the dated claim went to %s; want the graph's relation of 2015", got)
	}
	if got := f.proposal(undated.Proposals[0].ID).Relation; got != leads+".2022" {
		t.Errorf("the undated claim of 2023 went to %s; want the graph's relation since 2022", got)
	}
	if _, _, err := f.graph.GetRelation(ctx, leads); graph.KindOf(err) != graph.NotFound {
		t.Errorf("an unkeyed duplicate of the keyed relations was made: %v", err)
	}
	rel, _, err := f.graph.GetRelation(ctx, member)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Role != "councillor" || rel.ValidFrom.String() != "2010" || rel.ValidTo.String() != "2012" || len(rel.Claims) != 3 {
		t.Errorf("the graph's relation after the approval: role %q, %s–%s, %d claims", rel.Role, rel.ValidFrom, rel.ValidTo, len(rel.Claims))
	}
	rel, _, err = f.graph.GetRelation(ctx, member+".2020")
	if err != nil {
		t.Fatal(err)
	}
	if rel.Date.String() != "2020" || rel.Role != "" || len(rel.Claims) != 1 {
		t.Errorf("the new membership: %+v", rel)
	}
}

func TestApproveManyAtOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const docs, each = 5, 60
	var all []string
	for d := range docs {
		var props []prop
		var es []review.Entity
		for i := range each {
			n := graph.EntityName(fmt.Sprintf("actors/%s-m%d-%d", f.tag, d, i))
			es = append(es, review.Entity{Name: n, Kind: graph.KindActor, DisplayName: fmt.Sprintf("Member %d of %d", i, d)})
			props = append(props, prop{graph.MemberOf, n, f.party, graph.StatusReported, 0.8, fmt.Sprintf("Member %d of list %d joined.", i, d), "2024", ""})
		}
		r := reading(fmt.Sprintf("List %d", d), es, props...)
		f.submit(r)
		all = append(all, ids(r.Proposals)...)
	}
	before, err := f.store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v0, _ := f.store.Version(ctx)
	start := time.Now()
	res, err := f.svc.Approve(ctx, reviewer("rita"), all)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	after, err := f.store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := graph.GraphCounts{Entities: before.Entities + docs*each, Relations: before.Relations + docs*each,
		Claims: before.Claims + docs*each, Sources: before.Sources + docs}
	if after != want || len(res.Approved) != docs*each {
		t.Errorf("after approving %d proposals: %+v, want %+v; %d approved", len(all), after, want, len(res.Approved))
	}
	// One write of the documents' sources, one of the new entities and one of relations: the version went
	// up three times.
	if v1, _ := f.store.Version(ctx); v1 != v0+3 {
		t.Errorf("the version went from %d to %d; want one write of sources, one of entities and one of relations", v0, v1)
	}
	t.Logf("approved %d proposals in %s", len(all), took.Round(time.Millisecond))
	ps, _, total, err := f.svc.ListProposals(ctx, review.ProposalFilter{Entity: f.party, State: review.Approved}, 100, 0)
	if err != nil || total != docs*each || len(ps) != 100 {
		t.Errorf("approved proposals naming the party: %d of %d (%v)", len(ps), total, err)
	}
	_, err = f.svc.Approve(ctx, reviewer("rita"), make([]string, review.MaxDecision+1))
	kindOf(t, err, graph.Invalid, "ids")
}

func TestEditChecksTheProposal(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	r := reading("Edits", nil,
		prop{graph.Endorses, f.ann, f.bob, graph.StatusReported, 0.8, "Ann endorsed Bob.", "", ""},
		prop{graph.Criticised, f.ann, f.bob, graph.StatusReported, 0.8, "Ann criticised Bob.", "", ""})
	f.submit(r)
	id := r.Proposals[0].ID
	ptr := func(s string) *string { return &s }
	typ := func(t graph.RelationType) *graph.RelationType { return &t }
	name := func(n graph.EntityName) *graph.EntityName { return &n }
	status := func(s graph.ClaimStatus) *graph.ClaimStatus { return &s }
	for _, tc := range []struct {
		name    string
		changes review.Changes
		kind    graph.ErrorKind
		fields  []string
	}{
		{"nothing to change", review.Changes{}, graph.Invalid, []string{"update_mask"}},
		{"a type outside the vocabulary", review.Changes{Type: typ("LIKES")}, graph.Invalid, []string{"type"}},
		{"a type that cannot join the kinds", review.Changes{Type: typ(graph.HoldsOffice)}, graph.Invalid, []string{"type"}},
		{"an end that is not a name", review.Changes{To: name("Bob")}, graph.Invalid, []string{"to"}},
		{"an end nobody knows", review.Changes{To: name("actors/" + graph.EntityName(f.tag) + "-nobody")}, graph.Invalid, []string{"to"}},
		{"an entity joined to itself", review.Changes{To: name(f.ann)}, graph.Invalid, []string{"to"}},
		{"a bad date", review.Changes{Date: ptr("2024-13")}, graph.Invalid, []string{"date"}},
		{"a date and a term", review.Changes{Date: ptr("2024"), ValidFrom: ptr("2020")}, graph.Invalid, []string{"date"}},
		{"a term that ends before it starts", review.Changes{ValidFrom: ptr("2020"), ValidTo: ptr("2019")}, graph.Invalid, []string{"valid_to"}},
		{"a bad status", review.Changes{Status: status("MAYBE")}, graph.Invalid, []string{"status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Edit(ctx, reviewer("rita"), id, tc.changes)
			kindOf(t, err, tc.kind, tc.fields...)
		})
	}
	if p := f.proposal(id); p.Type != graph.Endorses || p.To != f.bob {
		t.Fatalf("refused edits changed the proposal: %+v", p)
	}
	// A good edit: another type, other ends, a denial, a date, a role.
	p, err := f.svc.Edit(ctx, reviewer("rita"), id, review.Changes{Type: typ(graph.Leads), To: name(f.party), Status: status(graph.StatusDenied),
		ValidFrom: ptr("2021"), Role: ptr(" leader ")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Type != graph.Leads || p.From != f.ann || p.To != f.party || p.Status != graph.StatusDenied || p.ValidFrom.String() != "2021" || p.Role != "leader" || p.State != review.Pending {
		t.Errorf("the edited proposal: %+v", p)
	}
	if diff := cmp.Diff(p, f.proposal(id)); diff != "" {
		t.Errorf("the stored proposal differs from the edit's answer (-answer +stored):\n%s", diff)
	}
	// Approved as edited.
	if _, err := f.svc.Approve(ctx, reviewer("rita"), []string{id}); err != nil {
		t.Fatal(err)
	}
	rel, _, err := f.graph.GetRelation(ctx, graph.RelationNameFor(f.ann, graph.Leads, f.party, ""))
	if err != nil {
		t.Fatal(err)
	}
	if rel.Role != "leader" || rel.ValidFrom.String() != "2021" || len(rel.Claims) != 1 || rel.Claims[0].Status != graph.StatusDenied {
		t.Errorf("the relation of the edited proposal: %+v", rel)
	}
	// Only a pending proposal is edited; an unknown one is not found.
	_, err = f.svc.Edit(ctx, reviewer("rita"), id, review.Changes{Role: ptr("x")})
	kindOf(t, err, graph.FailedPrecondition)
	_, err = f.svc.Edit(ctx, reviewer("rita"), "proposals/0000000000000000", review.Changes{Role: ptr("x")})
	kindOf(t, err, graph.NotFound)
}

func TestMergeRepointsProposals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	dup := graph.EntityName("actors/" + f.tag + "-anne")
	r := reading("Anne", []review.Entity{{Name: dup, Kind: graph.KindActor, DisplayName: "Anne Spelled-Otherwise"}},
		prop{graph.Endorses, dup, f.bob, graph.StatusReported, 0.8, "Anne endorsed Bob.", "", ""},
		prop{graph.Criticised, f.bob, dup, graph.StatusAlleged, 0.6, "Bob criticised Anne, it is said.", "", ""},
		prop{graph.FormerlyWorkedWith, dup, f.ann, graph.StatusReported, 0.6, "Anne used to work with Ann.", "", ""})
	f.submit(r)

	_, err := f.svc.MergeEntity(ctx, reviewer("rita"), dup, f.party)
	kindOf(t, err, graph.Invalid, "into")
	_, err = f.svc.MergeEntity(ctx, reviewer("rita"), dup, graph.EntityName("actors/"+f.tag+"-nobody"))
	kindOf(t, err, graph.NotFound)
	_, err = f.svc.MergeEntity(ctx, reviewer("rita"), graph.EntityName("actors/"+f.tag+"-unproposed"), f.ann)
	kindOf(t, err, graph.NotFound)

	res, err := f.svc.MergeEntity(ctx, reviewer("rita"), dup, f.ann)
	if err != nil {
		t.Fatal(err)
	}
	if res.Entity.State != review.Merged || res.Entity.MergedInto != f.ann || len(res.Repointed) != 2 || len(res.Rejected) != 1 {
		t.Fatalf("MergeEntity: %+v", res)
	}
	if p := f.proposal(r.Proposals[0].ID); p.From != f.ann || p.State != review.Pending {
		t.Errorf("the endorsement after the merge: %+v", p)
	}
	if p := f.proposal(r.Proposals[2].ID); p.State != review.Rejected || !strings.Contains(p.Reason, "merged") {
		t.Errorf("the proposal joining the merged entity to its twin: %+v", p)
	}
	if ps, _, _, _ := f.svc.ListProposals(ctx, review.ProposalFilter{Entity: dup, State: review.Pending}, 0, 0); len(ps) != 0 {
		t.Errorf("%d pending proposals still name the merged entity", len(ps))
	}
	// A later document naming it is written to the existing entity.
	r2 := reading("Anne again", []review.Entity{{Name: dup, Kind: graph.KindActor, DisplayName: "Anne Spelled-Otherwise"}},
		prop{graph.AppearedWith, dup, f.bob, graph.StatusReported, 0.8, "Anne appeared with Bob.", "2024", ""})
	if got := f.submit(r2); got.Entities != 0 || got.Proposals != 1 {
		t.Errorf("the later document: %+v", got)
	}
	if p := f.proposal(r2.Proposals[0].ID); p.From != f.ann {
		t.Errorf("the later proposal names %s; want %s", p.From, f.ann)
	}
	if _, err := f.svc.Approve(ctx, reviewer("rita"), []string{r.Proposals[0].ID, r.Proposals[1].ID, r2.Proposals[0].ID}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []graph.RelationName{graph.RelationNameFor(f.ann, graph.Endorses, f.bob, ""), graph.RelationNameFor(f.bob, graph.Criticised, f.ann, ""),
		graph.RelationNameFor(f.ann, graph.AppearedWith, f.bob, "")} {
		if _, _, err := f.graph.GetRelation(ctx, n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := f.graph.GetEntity(ctx, string(dup), nil); graph.KindOf(err) != graph.NotFound {
		t.Errorf("the merged proposed entity is in the graph: %v", err)
	}
	// Merged once: merging it again elsewhere is refused.
	_, err = f.svc.MergeEntity(ctx, reviewer("rita"), dup, f.bob)
	kindOf(t, err, graph.FailedPrecondition)
}

func TestRejectedEntityTakesItsProposals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	junk := graph.EntityName("organisations/" + f.tag + "-daily-reader")
	r := reading("Comments", []review.Entity{{Name: junk, Kind: graph.KindOrganisation, DisplayName: "Daily Reader"}},
		prop{graph.Criticised, junk, f.ann, graph.StatusAlleged, 0.4, "Daily Reader slams Ann.", "", ""},
		prop{graph.Endorses, f.bob, f.ann, graph.StatusReported, 0.8, "Bob backs Ann, Daily Reader says.", "", junk})
	f.submit(r)
	_, err := f.svc.RejectEntity(ctx, reviewer("rita"), junk, "")
	kindOf(t, err, graph.Invalid, "reason")
	res, err := f.svc.RejectEntity(ctx, reviewer("rita"), junk, "a reader's handle, not an organisation")
	if err != nil {
		t.Fatal(err)
	}
	if res.Entity.State != review.Rejected || len(res.Rejected) != 1 || res.Rejected[0].ID != r.Proposals[0].ID {
		t.Fatalf("RejectEntity: %+v", res)
	}
	if p := f.proposal(r.Proposals[1].ID); p.State != review.Pending || p.SaidBy != "" {
		t.Errorf("the proposal it only said: %+v", p)
	}
	_, err = f.svc.MergeEntity(ctx, reviewer("rita"), junk, graph.EntityName("organisations/x"))
	kindOf(t, err, graph.FailedPrecondition)
}

func TestDecisionsCheckTheirInput(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	r := reading("Decisions", nil, prop{graph.Endorses, f.ann, f.bob, graph.StatusReported, 0.8, "Ann endorsed Bob.", "", ""})
	f.submit(r)
	id := r.Proposals[0].ID
	unknown := "proposals/ffffffffffffffff"
	for _, tc := range []struct {
		name   string
		call   func() error
		kind   graph.ErrorKind
		fields []string
	}{
		{"approve nothing", func() error { _, err := f.svc.Approve(ctx, reviewer("r"), nil); return err }, graph.Invalid, []string{"ids"}},
		{"approve a bad id", func() error { _, err := f.svc.Approve(ctx, reviewer("r"), []string{id, "relations/x"}); return err }, graph.Invalid, []string{"ids[1]"}},
		{"approve an unknown id", func() error { _, err := f.svc.Approve(ctx, reviewer("r"), []string{id, unknown}); return err }, graph.NotFound, nil},
		{"reject without a reason", func() error { _, err := f.svc.Reject(ctx, reviewer("r"), []string{id}, ""); return err }, graph.Invalid, []string{"reason"}},
		{"reject an unknown id", func() error { _, err := f.svc.Reject(ctx, reviewer("r"), []string{unknown}, "no"); return err }, graph.NotFound, nil},
		{"list a bad state", func() error {
			_, _, _, err := f.svc.ListProposals(ctx, review.ProposalFilter{State: "DONE"}, 0, 0)
			return err
		}, graph.Invalid, []string{"state"}},
		{"list too many", func() error { _, _, _, err := f.svc.ListProposals(ctx, review.ProposalFilter{}, 5000, 0); return err }, graph.Invalid, []string{"page_size"}},
		{"an unknown document", func() error { _, err := f.svc.GetDocument(ctx, "deadbeefdeadbeef"); return err }, graph.NotFound, nil},
		{"not a document", func() error { _, err := f.svc.GetDocument(ctx, "the election"); return err }, graph.Invalid, []string{"name"}},
	} {
		t.Run(tc.name, func(t *testing.T) { kindOf(t, tc.call(), tc.kind, tc.fields...) })
	}
	if p := f.proposal(id); p.State != review.Pending {
		t.Errorf("refused decisions changed the proposal: %s", p.State)
	}
	// An approved proposal is not rejected: its claim is in the graph.
	if _, err := f.svc.Approve(ctx, reviewer("r"), []string{id}); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Reject(ctx, reviewer("r"), []string{id}, "changed my mind")
	kindOf(t, err, graph.FailedPrecondition, "ids[0]")
}

func TestListPages(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var props []prop
	for i := range 7 {
		props = append(props, prop{graph.AppearedWith, f.ann, f.bob, graph.StatusReported, 0.5, fmt.Sprintf("They appeared together, time %d.", i), "", ""})
	}
	r := reading("Pages", nil, props...)
	f.submit(r)
	var got []string
	for offset, pages := 0, 0; ; pages++ {
		ps, next, total, err := f.svc.ListProposals(ctx, review.ProposalFilter{Document: r.Document.Hash}, 3, offset)
		if err != nil {
			t.Fatal(err)
		}
		if total != 7 || pages > 3 {
			t.Fatalf("total %d after %d pages", total, pages)
		}
		got = append(got, ids(ps)...)
		if next == 0 {
			break
		}
		offset = next
	}
	if diff := cmp.Diff(ids(r.Proposals), got); diff != "" {
		t.Errorf("the pages together (-want +got):\n%s", diff)
	}
}
