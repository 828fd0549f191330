package storetest

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// testUpsertTwice: a source, entity or relation written again is one copy with the later values: lists
// replaced, fields left empty emptied, claims written again changed, and the claims left out kept.
func testUpsertTwice(t *testing.T, s Subject) {
	ctx := t.Context()
	f := writeFixture(t, s)

	article := srcArticle
	article.Title, article.Author = "Council leader founds a new party", ""
	must(t, s.UpsertSources(ctx, []graph.Source{article}))
	renamed := lutfur
	renamed.DisplayName, renamed.Aliases, renamed.Description = "Lutfur Rahman (mayor)", []string{"L. Rahman"}, ""
	renamed.Identifiers = graph.Identifiers{"wikidata": {"Q1"}}
	must(t, s.UpsertEntities(ctx, []graph.Entity{renamed}))
	moved := holds
	moved.Via, moved.Role, moved.ValidTo = "", "member", graph.FuzzyDate{}
	reclaimed := founded
	reclaimed.Claims = []graph.Claim{founded.Claims[1]} // the post's claim only, changed
	c := &reclaimed.Claims[0]
	c.Excerpt, c.Confidence, c.Status, c.SaidBy = "he founded it", 0.8, graph.StatusConfirmed, ""
	must(t, s.UpsertRelations(ctx, []graph.Relation{moved, reclaimed}))

	got, err := s.GetEntity(ctx, lutfur.Name)
	must(t, err)
	diff(t, "the entity written again", renamed, got)
	for text, want := range map[string][]graph.EntityName{"L. Rahman": {lutfur.Name}, "Lutfur Rahman OBE": nil, "Lutfur Rahman": nil,
		"Lutfur Rahman (mayor)": {lutfur.Name}} {
		found, err := s.FindByName(ctx, text)
		must(t, err)
		diff(t, "FindByName("+text+") after the entity was renamed", want, names(found))
	}
	byID, err := s.EntitiesByIdentifier(ctx, "wikidata", []string{"Q1", "Q1-old"})
	must(t, err)
	diff(t, "EntitiesByIdentifier after an identifier was dropped", map[string][]graph.Entity{"Q1": {renamed}}, byID)
	listed, err := s.EntityNames(ctx, "", 100)
	must(t, err)
	diff(t, "EntityNames after an entity was written again", f.entityNames(), listed)

	sources := f.sourceMap()
	sources[article.Name] = article
	diff(t, "the relation written again", withSources(moved, sources), relation(t, s, holdsName))
	want := founded
	want.Claims = []graph.Claim{founded.Claims[0], reclaimed.Claims[0]}
	diff(t, "the relation with one claim written again", withSources(want, sources), relation(t, s, foundedName))
	info, err := s.GetSource(ctx, article.Name, 0, 0)
	must(t, err)
	diff(t, "the source written again", article, info.Source)
	vias, err := s.ViaLinks(ctx, []graph.EntityName{labour.Name, rushanara.Name})
	must(t, err)
	if len(vias[labour.Name])+len(vias[rushanara.Name]) > 0 {
		t.Errorf("a via written away still links: %+v", vias)
	}
	diff(t, "Counts after writing again", graph.GraphCounts{Entities: 7, Relations: 6, Claims: 7, Sources: 3}, counts(t, s))
}

// testChangeFeed: each write raises the version by one (a write of entities that changes none leaves
// it), and Changes gives exactly what changed after a version: sources, entities, and relations with
// their headers and evidence, as the reads give them.
func testChangeFeed(t *testing.T, s Subject) {
	ctx := t.Context()
	if v := version(t, s); v != 0 {
		t.Fatalf("an empty graph is at version %d, want 0", v)
	}
	if f := changes(t, s, 0); f.version != 0 || f.calls != 0 {
		t.Errorf("Changes of an empty graph: version %d, %d batches; want 0 and none", f.version, f.calls)
	}
	fx := newFixture()
	step := func(what string, wantVersion int64, write func() error) {
		t.Helper()
		must(t, write())
		if v := version(t, s); v != wantVersion {
			t.Fatalf("after %s the version is %d, want %d", what, v, wantVersion)
		}
	}
	step("writing sources", 1, func() error { return s.UpsertSources(ctx, fx.sources) })
	step("writing entities", 2, func() error { return s.UpsertEntities(ctx, fx.entities) })
	step("writing relations", 3, func() error { return s.UpsertRelations(ctx, fx.relations) })

	allSources := sortedNames(srcArticle.Name, srcPost.Name, srcRegister.Name)
	allEntities := fx.entityNames()
	allRelations := sortedNames(foundedName, memberName, holdsName, workedName, criticisedName, appearedName)
	for _, c := range []struct {
		since     int64
		sources   []graph.SourceName
		entities  []graph.EntityName
		relations []graph.RelationName
	}{
		{0, allSources, allEntities, allRelations},
		{1, nil, allEntities, allRelations},
		{2, nil, nil, allRelations},
	} {
		f := changes(t, s, c.since)
		checkFeed(t, s, "Changes("+strconv.FormatInt(c.since, 10)+")", f, 3, c.sources, c.entities, c.relations)
	}
	if f := changes(t, s, 3); f.version != 3 || f.calls != 0 {
		t.Errorf("Changes(3) at version 3: version %d, %d batches; want 3 and none", f.version, f.calls)
	}
	if f := changes(t, s, 5); f.version != 3 || f.calls != 0 {
		t.Errorf("Changes(5) at version 3: version %d, %d batches; want 3 and none", f.version, f.calls)
	}
	// The same entities again change nothing.
	step("writing the entities again unchanged", 3, func() error { return s.UpsertEntities(ctx, fx.entities) })

	described := rushanara
	described.Description = "Member of Parliament"
	step("describing an entity", 4, func() error { return s.UpsertEntities(ctx, []graph.Entity{described}) })
	f := changes(t, s, 3)
	checkFeed(t, s, "Changes after an entity was described", f, 4, nil, []graph.EntityName{rushanara.Name}, nil)
	diff(t, "the entity the feed gives", described, f.ent[rushanara.Name])

	// An end's lifetime bounds its relations: they change with it.
	ended := lutfur
	ended.ValidTo = graph.FuzzyDate{Year: 2030}
	step("ending an entity's lifetime", 5, func() error { return s.UpsertEntities(ctx, []graph.Entity{ended}) })
	f = changes(t, s, 4)
	checkFeed(t, s, "Changes after a lifetime changed", f, 5, nil, []graph.EntityName{lutfur.Name},
		sortedNames(foundedName, workedName, criticisedName))
	for _, n := range f.links {
		if end := (graph.FuzzyDate{Year: 2030}).LastDay(); f.link[n].Life.End != end {
			t.Errorf("after its end's lifetime changed, %s's life ends on day %d, want %d", n, f.link[n].Life.End, end)
		}
	}

	retitled := srcPost
	retitled.Title = "A post, deleted since"
	step("retitling a source", 6, func() error { return s.UpsertSources(ctx, []graph.Source{retitled}) })
	f = changes(t, s, 5)
	checkFeed(t, s, "Changes after a source changed", f, 6, []graph.SourceName{srcPost.Name}, nil, nil)
	diff(t, "the source the feed gives", retitled, f.src[srcPost.Name])

	step("writing a relation again", 7, func() error { return s.UpsertRelations(ctx, []graph.Relation{founded}) })
	f = changes(t, s, 6)
	checkFeed(t, s, "Changes after a relation was written", f, 7, nil, nil, []graph.RelationName{foundedName})
	diff(t, "the header the feed gives", graph.RelationHeader{Relation: evidence(founded), ClaimCount: 2,
		Support: graph.Support{-1, 0.6, 0.9, -1}, Verdict: graph.Verdict{Claims: [4]int{0, 1, 1, 0}, SupportingSources: 2}}, f.header[foundedName])
}

// checkFeed checks what Changes gave: its version, the names of what changed, and each link and header
// against what the reads give (a header's claims against GetRelations', each naming its source only).
func checkFeed(t *testing.T, s Subject, what string, f feed, version int64, sources []graph.SourceName, entities []graph.EntityName, relations []graph.RelationName) {
	t.Helper()
	if f.version != version {
		t.Errorf("%s: version %d, want %d", what, f.version, version)
	}
	diff(t, what+": sources", sources, f.sources)
	diff(t, what+": entities", entities, f.entities)
	diff(t, what+": relations", relations, f.links)
	if !f.evidence {
		t.Errorf("%s: relations without their evidence", what)
	}
	if len(f.entities) > 0 {
		read, err := s.GetEntities(t.Context(), f.entities)
		must(t, err)
		for _, n := range f.entities {
			diff(t, what+": entity "+string(n)+" as GetEntities reads it", read[n], f.ent[n])
		}
	}
	for _, n := range f.links {
		l := f.link[n]
		read := linksOf(t, s, l.From)
		i := slices.IndexFunc(read, func(r graph.Link) bool { return r.Name == n })
		if i < 0 {
			t.Errorf("%s: %s is not among the links of its end %s", what, n, l.From)
			continue
		}
		diff(t, what+": link "+string(n)+" as Links reads it", read[i], l)
		h := headerOf(t, s, n)
		h.Relation.Claims = evidence(relation(t, s, n)).Claims
		diff(t, what+": header "+string(n)+" as RelationHeaders and GetRelations read it", h, f.header[n])
	}
}

// testMissingReferences: a relation naming an entity or a source not written is refused as Invalid,
// and nothing is written.
func testMissingReferences(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	claim := func(r graph.RelationName, src graph.SourceName) graph.Claim {
		return graph.Claim{Name: graph.ClaimNameFor(r, src, ""), Source: graph.Source{Name: src}, Confidence: 0.5, Status: graph.StatusReported}
	}
	toNobody := graph.RelationNameFor(lutfur.Name, graph.Endorses, "actors/nobody", "")
	uncited := graph.RelationNameFor(lutfur.Name, graph.Endorses, rushanara.Name, "")
	for _, c := range []struct {
		name string
		r    graph.Relation
	}{
		{"an end", graph.Relation{Name: toNobody, Type: graph.Endorses, From: lutfur.Name, To: "actors/nobody", Claims: []graph.Claim{claim(toNobody, srcPost.Name)}}},
		{"a source", graph.Relation{Name: uncited, Type: graph.Endorses, From: lutfur.Name, To: rushanara.Name, Claims: []graph.Claim{claim(uncited, "sources/nowhere")}}},
		{"a via", graph.Relation{Name: uncited, Type: graph.Endorses, From: lutfur.Name, To: rushanara.Name, Via: "parties/nowhere", Claims: []graph.Claim{claim(uncited, srcPost.Name)}}},
		{"a term", graph.Relation{Name: uncited, Type: graph.Endorses, From: lutfur.Name, To: rushanara.Name, Term: "organisations/no-term", Claims: []graph.Claim{claim(uncited, srcPost.Name)}}},
		{"who said it", graph.Relation{Name: uncited, Type: graph.Endorses, From: lutfur.Name, To: rushanara.Name,
			Claims: []graph.Claim{{Name: graph.ClaimNameFor(uncited, srcPost.Name, ""), Source: graph.Source{Name: srcPost.Name}, Confidence: 0.5,
				Status: graph.StatusReported, SaidBy: "actors/nobody"}}}},
	} {
		err := s.UpsertRelations(ctx, []graph.Relation{founded, c.r})
		if graph.KindOf(err) != graph.Invalid {
			t.Errorf("a relation naming %s not written: %v (kind %v), want Invalid", c.name, err, graph.KindOf(err))
		}
		if v := version(t, s); v != 3 {
			t.Errorf("a refused write (%s) raised the version to %d", c.name, v)
		}
		got, err := s.GetRelations(ctx, []graph.RelationName{c.r.Name})
		must(t, err)
		if len(got) > 0 {
			t.Errorf("a refused write (%s) wrote %s", c.name, c.r.Name)
		}
	}
	diff(t, "Counts after refused writes", graph.GraphCounts{Entities: 7, Relations: 6, Claims: 7, Sources: 3}, counts(t, s))
}

// testTombstones: a deleted relation or entity, and a retracted claim, are kept and shown, but counted
// nowhere and found by no search; each tombstone raises the version once, and the feed gives what it
// changed.
func testTombstones(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	tomb := func(what string, wantVersion int64, err error) {
		t.Helper()
		must(t, err)
		if v := version(t, s); v != wantVersion {
			t.Errorf("after %s the version is %d, want %d", what, v, wantVersion)
		}
	}

	// A relation deleted: kept, shown as deleted, not counted; deleted again, nothing changes.
	_, err := s.DeleteRelation(ctx, criticisedName, "not a criticism")
	tomb("deleting a relation", 4, err)
	if d := relation(t, s, criticisedName).Deleted; d.IsZero() || d.Reason != "not a criticism" {
		t.Errorf("the deleted relation's tombstone: %+v", d)
	}
	want := fixtureLinks()
	gone := want[criticisedName]
	gone.Deleted = true
	diff(t, "Links of an end of a deleted relation", byName([]graph.Link{want[foundedName], want[workedName], gone}), linksOf(t, s, lutfur.Name))
	rc, err := s.RelationCounts(ctx, lutfur.Name)
	must(t, err)
	diff(t, "RelationCounts without the deleted relation", []graph.RelationCount{{Type: graph.FormerlyWorkedWith, Outgoing: true, Count: 1},
		{Type: graph.Founded, Outgoing: true, Count: 1}}, rc)
	deg, err := s.Degrees(ctx, []graph.EntityName{lutfur.Name})
	must(t, err)
	diff(t, "Degrees, the deleted relation included", map[graph.EntityName]int{lutfur.Name: 3}, deg)
	diff(t, "Counts after a relation was deleted", graph.GraphCounts{Entities: 7, Relations: 5, Claims: 6, Sources: 3}, counts(t, s))
	f := changes(t, s, 3)
	checkFeed(t, s, "Changes after a relation was deleted", f, 4, nil, nil, []graph.RelationName{criticisedName})
	_, err = s.DeleteRelation(ctx, criticisedName, "again")
	tomb("deleting a relation again", 4, err)
	if r := relation(t, s, criticisedName).Deleted.Reason; r != "not a criticism" {
		t.Errorf("a second deletion replaced the first's reason with %q", r)
	}

	// A claim retracted: kept, no longer supporting or denying.
	denial := worked.Claims[0].Name
	_, err = s.RetractClaim(ctx, denial, "misquoted")
	tomb("retracting a claim", 5, err)
	diff(t, "the header of a relation with a claim retracted", graph.RelationHeader{Relation: bare(worked), ClaimCount: 2,
		Support: graph.Support{0.4, -1, -1, -1}, Verdict: graph.Verdict{Claims: [4]int{1, 0, 0, 0}, SupportingSources: 1}}, headerOf(t, s, workedName))
	claims := relation(t, s, workedName).Claims
	if i := slices.IndexFunc(claims, func(c graph.Claim) bool { return c.Name == denial }); i < 0 || claims[i].Retracted.Reason != "misquoted" {
		t.Errorf("the retracted claim as read: %+v", claims)
	}
	cs, err := s.ClaimSources(ctx, []graph.RelationName{workedName})
	must(t, err)
	if len(cs[workedName]) != 2 {
		t.Errorf("ClaimSources after a retraction: %+v, want both claims", cs[workedName])
	}
	diff(t, "Counts after a claim was retracted", graph.GraphCounts{Entities: 7, Relations: 5, Claims: 5, Sources: 3}, counts(t, s))
	checkFeed(t, s, "Changes after a claim was retracted", changes(t, s, 4), 5, nil, nil, []graph.RelationName{workedName})
	_, err = s.RetractClaim(ctx, denial, "again")
	tomb("retracting a claim again", 5, err)
	for _, c := range []string{"relations/nobody.founded.nothing/claims/nowhere", "not-a-claim"} {
		if _, err := s.RetractClaim(ctx, c, "no such claim"); graph.KindOf(err) != graph.NotFound {
			t.Errorf("RetractClaim(%s): %v, want NotFound", c, err)
		}
	}
	// A retraction stands when the claim is written again.
	must(t, s.UpsertRelations(ctx, []graph.Relation{worked}))
	if h := headerOf(t, s, workedName); h.Support[graph.StatusDenied.Index()] != -1 {
		t.Errorf("the retracted claim, written again, denies the relation again: %+v", h.Support)
	}

	// An entity deleted: kept, found only by name, its relations deleted with it.
	_, err = s.DeleteEntity(ctx, jose.Name, "loaded by mistake")
	tomb("deleting an entity", 7, err)
	got, err := s.GetEntity(ctx, jose.Name)
	must(t, err)
	if got.Deleted.IsZero() || got.Deleted.Reason != "loaded by mistake" {
		t.Errorf("the deleted entity's tombstone: %+v", got.Deleted)
	}
	found, err := s.FindByName(ctx, jose.DisplayName)
	must(t, err)
	diff(t, "FindByName of a deleted entity", []graph.EntityName(nil), names(found))
	results, err := s.Search(ctx, graph.SearchQuery{Text: jose.DisplayName})
	must(t, err)
	for _, r := range results {
		if r.Entity.Name == jose.Name {
			t.Errorf("Search found the deleted %s", jose.Name)
		}
	}
	listed, err := s.EntityNames(ctx, "", 100)
	must(t, err)
	if slices.Contains(listed, jose.Name) {
		t.Errorf("EntityNames lists the deleted %s", jose.Name)
	}
	if relation(t, s, appearedName).Deleted.IsZero() {
		t.Errorf("the deleted entity's relation %s is not deleted", appearedName)
	}
	diff(t, "Counts after an entity was deleted", graph.GraphCounts{Entities: 6, Relations: 4, Claims: 5, Sources: 3}, counts(t, s))
	rc, err = s.RelationCounts(ctx, jose.Name)
	must(t, err)
	diff(t, "RelationCounts of a deleted entity", []graph.RelationCount(nil), rc)
	// The relation deleted before is not deleted again.
	checkFeed(t, s, "Changes after an entity was deleted", changes(t, s, 6), 7, nil, []graph.EntityName{jose.Name}, []graph.RelationName{appearedName})
	_, err = s.DeleteEntity(ctx, jose.Name, "again")
	tomb("deleting an entity again", 7, err)

	// Nothing live joins a deleted entity; a deleted relation written again stays deleted.
	endorses := graph.RelationNameFor(jose.Name, graph.Endorses, aspire.Name, "")
	err = s.UpsertRelations(ctx, []graph.Relation{{Name: endorses, Type: graph.Endorses, From: jose.Name, To: aspire.Name,
		Claims: []graph.Claim{{Name: graph.ClaimNameFor(endorses, srcPost.Name, ""), Source: graph.Source{Name: srcPost.Name}, Confidence: 0.5, Status: graph.StatusReported}}}})
	if graph.KindOf(err) != graph.FailedPrecondition {
		t.Errorf("a new relation of a deleted entity: %v, want FailedPrecondition", err)
	}
	if v := version(t, s); v != 7 {
		t.Errorf("a refused write raised the version to %d", v)
	}
	must(t, s.UpsertRelations(ctx, []graph.Relation{appeared}))
	if relation(t, s, appearedName).Deleted.IsZero() {
		t.Errorf("a deleted relation written again is live again")
	}
	must(t, s.UpsertEntities(ctx, []graph.Entity{jose}))
	if e, err := s.GetEntity(ctx, jose.Name); err != nil || e.Deleted.IsZero() {
		t.Errorf("a deleted entity written again: %+v, %v; want it still deleted", e.Deleted, err)
	}

	st, err := s.Stats(ctx)
	must(t, err)
	diff(t, "Stats after deletions and a retraction: entities by kind", map[graph.Kind]int{graph.KindActor: 2, graph.KindParty: 2,
		graph.KindSeat: 1, graph.KindOrganisation: 1}, st.EntitiesByKind)
	diff(t, "Stats after deletions and a retraction: relations by type", map[graph.RelationType]int{graph.Founded: 1, graph.MemberOf: 1,
		graph.HoldsOffice: 1, graph.FormerlyWorkedWith: 1}, st.RelationsByType)
	diff(t, "Stats after deletions and a retraction: claims by status", map[graph.ClaimStatus]int{graph.StatusConfirmed: 3,
		graph.StatusReported: 1, graph.StatusAlleged: 1}, st.ClaimsByStatus)

	// A deleted entity holds its identifiers, but no lookup finds it by them.
	_, err = s.DeleteEntity(ctx, seat.Name, "abolished")
	must(t, err)
	byID, err := s.EntitiesByIdentifier(ctx, "ocd", []string{ocdSeat})
	must(t, err)
	diff(t, "EntitiesByIdentifier of a deleted entity's id", map[string][]graph.Entity(nil), byID)

	if _, err := s.DeleteEntity(ctx, "actors/nobody", "no such entity"); graph.KindOf(err) != graph.NotFound {
		t.Errorf("DeleteEntity of no entity: %v, want NotFound", err)
	}
	if _, err := s.DeleteRelation(ctx, "relations/nobody.founded.nothing", "no such relation"); graph.KindOf(err) != graph.NotFound {
		t.Errorf("DeleteRelation of no relation: %v, want NotFound", err)
	}
}

// writeTombstoned writes, after the small graph, an entity and a relation given tombstones (the
// relation's claim retracted), and returns their names.
func writeTombstoned(t *testing.T, s Subject) (graph.EntityName, graph.RelationName) {
	t.Helper()
	writeFixture(t, s)
	mark := graph.Tombstone{Time: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), By: "someone", Reason: "given to a write"}
	ghost := graph.Entity{Name: "actors/ghost", Kind: graph.KindActor, DisplayName: "Ghost Writer", Deleted: mark}
	name := graph.RelationNameFor(ghost.Name, graph.Endorses, lutfur.Name, "")
	rel := graph.Relation{Name: name, Type: graph.Endorses, From: ghost.Name, To: lutfur.Name, Deleted: mark,
		Claims: []graph.Claim{{Name: graph.ClaimNameFor(name, srcPost.Name, ""), Source: graph.Source{Name: srcPost.Name}, Confidence: 0.5,
			Status: graph.StatusReported, Retracted: mark}}}
	write(t, s, nil, []graph.Entity{ghost}, []graph.Relation{rel})
	return ghost.Name, name
}

// testWritesIgnoreTombstones: a tombstone is made by graph.Tombstones only; one given to a write is not
// kept.
func testWritesIgnoreTombstones(t *testing.T, s Subject) {
	ghost, name := writeTombstoned(t, s)
	got, err := s.GetEntity(t.Context(), ghost)
	must(t, err)
	if !got.Deleted.IsZero() {
		t.Errorf("GetEntity: an entity written with a tombstone reads deleted")
	}
	if r := relation(t, s, name); !r.Deleted.IsZero() || !r.Claims[0].Retracted.IsZero() {
		t.Errorf("GetRelations: a relation written with tombstones reads deleted or retracted: %+v", r)
	}
	if ls := linksOf(t, s, ghost); len(ls) != 1 || ls[0].Deleted {
		t.Errorf("Links: a relation written with a tombstone: %+v, want one link, not deleted", ls)
	}
	diff(t, "Counts after writes given tombstones", graph.GraphCounts{Entities: 8, Relations: 7, Claims: 8, Sources: 3}, counts(t, s))
}

// testFeedIgnoresTombstones: the feed gives an entity and a relation written with tombstones as the reads
// give them (graph.Changed: headers as Store.RelationHeaders reads them).
func testFeedIgnoresTombstones(t *testing.T, s Subject) {
	ghost, name := writeTombstoned(t, s)
	checkFeed(t, s, "Changes after writes given tombstones", changes(t, s, 3), 5, nil, []graph.EntityName{ghost}, []graph.RelationName{name})
}

// testRandomGraphs writes random graphs, their claims citing several sources, and reads every relation
// back: from both ends (Links, Degrees), whole (GetRelations), as headers, and from the feed.
func testRandomGraphs(t *testing.T, s Subject) {
	ctx := t.Context()
	var ents []graph.Entity
	var rels []graph.Relation
	sources := map[graph.SourceName]graph.Source{}
	for _, seed := range []uint64{31, 32, 33} {
		e, r := graphtest.RandomGraph(seed, 12, 40)
		srcs := graphtest.RandomSources(seed, r, 3)
		write(t, s, srcs, e, r)
		ents, rels = append(ents, e...), append(rels, r...)
		for _, src := range srcs {
			sources[src.Name] = src
		}
	}
	want := map[graph.EntityName][]graph.Link{}
	for _, l := range graphtest.Links(ents, rels) {
		want[l.From] = append(want[l.From], l)
		want[l.To] = append(want[l.To], l)
	}
	var entNames []graph.EntityName
	wantDegrees := map[graph.EntityName]int{}
	for _, e := range ents {
		entNames = append(entNames, e.Name)
		want[e.Name] = byName(want[e.Name])
		wantDegrees[e.Name] = len(want[e.Name])
	}
	links, err := s.Links(ctx, entNames)
	must(t, err)
	for n, ls := range links {
		links[n] = byName(ls)
	}
	diff(t, "Links of random graphs", want, links)
	degrees, err := s.Degrees(ctx, entNames)
	must(t, err)
	diff(t, "Degrees of random graphs", wantDegrees, degrees)

	var relNames []graph.RelationName
	wantRels := map[graph.RelationName]graph.Relation{}
	wantHeaders := map[graph.RelationName]graph.RelationHeader{}
	for _, r := range rels {
		relNames = append(relNames, r.Name)
		wantRels[r.Name] = withSources(r, sources)
		wantHeaders[r.Name] = graph.RelationHeader{Relation: bare(r), ClaimCount: len(r.Claims), Support: graph.SupportOf(r.Claims), Verdict: graph.VerdictOf(r.Claims)}
	}
	got, err := s.GetRelations(ctx, relNames)
	must(t, err)
	diff(t, "GetRelations of random graphs", wantRels, got)
	headers, err := s.RelationHeaders(ctx, relNames)
	must(t, err)
	diff(t, "RelationHeaders of random graphs", wantHeaders, headers)

	f := changes(t, s, 0)
	wantLinks := map[graph.RelationName]graph.Link{}
	wantFeedHeaders := map[graph.RelationName]graph.RelationHeader{}
	for i, l := range graphtest.Links(ents, rels) {
		wantLinks[l.Name] = l
		h := wantHeaders[l.Name]
		h.Relation = evidence(rels[i])
		wantFeedHeaders[l.Name] = h
	}
	diff(t, "the feed's links of random graphs", wantLinks, f.link)
	diff(t, "the feed's headers of random graphs", wantFeedHeaders, f.header)
	if !f.evidence {
		t.Errorf("the feed gave relations without their evidence")
	}
	diff(t, "Counts of random graphs", graph.GraphCounts{Entities: len(ents), Relations: len(rels), Claims: claimsOf(rels), Sources: len(sources)}, counts(t, s))
}

func claimsOf(rels []graph.Relation) int {
	n := 0
	for _, r := range rels {
		n += len(r.Claims)
	}
	return n
}

func testJudgements(t *testing.T, s Subject) {
	ctx := graph.WithWriteMeta(t.Context(), graph.WriteMeta{Principal: "tester", Method: "SeparateEntities"})
	writeFixture(t, s)
	v := version(t, s)
	res, err := s.SeparateEntities(ctx, rushanara.Name, lutfur.Name, "two people")
	must(t, err)
	name := graph.JudgementName(lutfur.Name, rushanara.Name)
	if !slices.Equal(res.Created, []string{name}) {
		t.Errorf("a first judgement created %v, want %s", res.Created, name)
	}
	want := []graph.Judgement{{A: min(lutfur.Name, rushanara.Name), B: max(lutfur.Name, rushanara.Name), Reason: "two people"}}
	got := func(names ...graph.EntityName) []graph.Judgement {
		t.Helper()
		js, err := s.Separated(ctx, names)
		must(t, err)
		for i := range js {
			if js[i].At.IsZero() || js[i].By != "tester" {
				t.Errorf("judgement %d has no time, or another author than the write's: %+v", i, js[i])
			}
			js[i].At, js[i].By = time.Time{}, ""
		}
		return js
	}
	diff(t, "Separated on either entity", want, got(rushanara.Name))
	diff(t, "Separated on both", want, got(lutfur.Name, rushanara.Name))
	diff(t, "every judgement", want, got())
	diff(t, "Separated on another entity", []graph.Judgement(nil), got(jose.Name))
	if !graph.NewApart(got()).Has(rushanara.Name, lutfur.Name) {
		t.Error("NewApart does not hold the pair")
	}

	// Again with another reason: one judgement, the later reason.
	_, err = s.SeparateEntities(ctx, lutfur.Name, rushanara.Name, "born in other places")
	must(t, err)
	want[0].Reason = "born in other places"
	diff(t, "a judgement made again", want, got())
	if nv := version(t, s); nv != v {
		t.Errorf("judgements moved the graph's version from %d to %d: they change no read", v, nv)
	}

	// Unknown or deleted entities are refused.
	_, err = s.SeparateEntities(ctx, lutfur.Name, "actors/nobody", "no one")
	if graph.KindOf(err) != graph.NotFound || reasonOf(err) != "ENTITY_NOT_FOUND" {
		t.Errorf("a judgement on an unknown entity: %v, want NotFound ENTITY_NOT_FOUND", err)
	}
	_, err = s.DeleteEntity(ctx, jose.Name, "gone")
	must(t, err)
	_, err = s.SeparateEntities(ctx, lutfur.Name, jose.Name, "no one")
	if graph.KindOf(err) != graph.FailedPrecondition || reasonOf(err) != "ENTITY_DELETED" {
		t.Errorf("a judgement on a deleted entity: %v, want FailedPrecondition ENTITY_DELETED", err)
	}

	// Withdrawn: gone from Separated; withdrawn again, nothing changes.
	res, err = s.WithdrawJudgement(ctx, rushanara.Name, lutfur.Name, "one person after all")
	must(t, err)
	if !slices.Equal(res.Updated, []string{name}) {
		t.Errorf("withdrawing updated %v, want %s", res.Updated, name)
	}
	diff(t, "judgements after the withdrawal", []graph.Judgement(nil), got())
	res, err = s.WithdrawJudgement(ctx, rushanara.Name, lutfur.Name, "again")
	must(t, err)
	if len(res.Created)+len(res.Updated) != 0 {
		t.Errorf("withdrawing a withdrawn judgement changed %v", res)
	}
	// Judged again after the withdrawal: in force again.
	_, err = s.SeparateEntities(ctx, lutfur.Name, rushanara.Name, "two people")
	must(t, err)
	want[0].Reason = "two people"
	diff(t, "a judgement made again after its withdrawal", want, got(lutfur.Name))
}
