// Package synth makes synthetic political graphs of any size, deterministic from a seed, for benchmarks
// and load tests: actors in parties (a few parties are hubs with most members), local party branches,
// councils and their wards, constituencies that are abolished and succeeded, thirty years of elections
// with candidates, office holders and defeats, and a skewed web of endorsements, criticisms, accusations
// and working ties in which a few figures have thousands of links and most have a handful. Every relation
// has one to five claims from sources of its time; some claims are DENIED.
//
// Generate streams records to a Sink (a dataset file, N-Quads, or both) and keeps only the entities and a
// set of relation-name hashes, so a million relations need well under a gigabyte.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
)

// Config says what to generate.
type Config struct {
	Relations int    // how many relations to write, exactly (at least MinRelations)
	Seed      uint64 // the same seed and size give the same records, byte for byte
}

// MinRelations is the smallest graph Generate makes.
const MinRelations = 200

// Sink receives the records: every source first, then every entity, then the relations.
type Sink interface {
	WriteSource(graph.Source) error
	WriteEntity(graph.Entity) error
	WriteRelation(graph.Relation) error
}

// Sinks sends every record to each sink in turn.
type Sinks []Sink

// WriteSource implements Sink.
func (s Sinks) WriteSource(x graph.Source) error {
	for _, k := range s {
		if err := k.WriteSource(x); err != nil {
			return err
		}
	}
	return nil
}

// WriteEntity implements Sink.
func (s Sinks) WriteEntity(x graph.Entity) error {
	for _, k := range s {
		if err := k.WriteEntity(x); err != nil {
			return err
		}
	}
	return nil
}

// WriteRelation implements Sink.
func (s Sinks) WriteRelation(x graph.Relation) error {
	for _, k := range s {
		if err := k.WriteRelation(x); err != nil {
			return err
		}
	}
	return nil
}

// Stats describes what Generate wrote.
type Stats struct {
	Sources, Entities, Relations, Claims int
	ByKind                               map[graph.Kind]int
	ByType                               map[graph.RelationType]int
	DeniedClaims                         int // claims with status DENIED
	DisputedRelations                    int // relations with a DENIED claim and another claim
	OnlyDeniedRelations                  int // relations whose only claims are DENIED
	MultiClaimRelations                  int // relations with two claims or more
	KeyedRelations                       int // relations that needed a key to tell them from another
	// Degrees holds every entity's number of relations, by entity in the order written.
	Degrees []int32
}

// Years the graph covers.
const (
	FirstYear = 1995
	LastYear  = 2024
	years     = LastYear - FirstYear + 1
)

var (
	generalElections = []graph.FuzzyDate{ymd(1997, 5, 1), ymd(2001, 6, 7), ymd(2005, 5, 5), ymd(2010, 5, 6), ymd(2015, 5, 7), ymd(2017, 6, 8), ymd(2019, 12, 12), ymd(2024, 7, 4)}
	localElections   = []graph.FuzzyDate{ymd(1998, 5, 7), ymd(2002, 5, 2), ymd(2006, 5, 4), ymd(2010, 5, 6), ymd(2014, 5, 22), ymd(2018, 5, 3), ymd(2022, 5, 5)}
	mayoralElections = []graph.FuzzyDate{ymd(2002, 5, 2), ymd(2006, 5, 4), ymd(2010, 10, 21), ymd(2014, 5, 22), ymd(2018, 5, 3), ymd(2022, 5, 5)}
	boundaryReviews  = []int{2010, 2024}
)

func ymd(y, m, d int) graph.FuzzyDate { return graph.FuzzyDate{Year: y, Month: m, Day: d} }

type seatKind int

const (
	constituency seatKind = iota
	ward
	office
)

type entity struct {
	name    graph.EntityName
	display string
	kind    graph.Kind
}

type seat struct {
	id        int32 // entity index
	kind      seatKind
	town      int32
	from, to  int   // years the seat exists: [from, to); to is 0 when it still exists
	successor int32 // entity index of the seat that replaced it, or -1
}

type actor struct {
	id    int32
	party int16 // index into g.parties, or -1
	town  int32
}

type generator struct {
	r     *rand.Rand
	n     int
	sink  Sink
	stats Stats

	ents    []entity
	slugs   map[string]int
	actors  []actor // by prominence: actors[0] is the best connected
	parties []int32
	// partyMembers lists, for each party, the actors whose home party it is, by prominence.
	partyMembers [][]int32
	partyZipf    []*zipf
	branches     []int32 // organisations that are local branches of a party
	branchParty  []int16
	branchOf     map[[2]int32]int32 // (party, town) → branch entity
	councils     []int32            // one per town
	towns        []string
	townActors   [][]int32 // actors of each town (entity indices)
	orgs         []int32   // campaigns, unions, associations
	outlets      []int32
	court        int32
	removals     int  // early ends of terms by removal or deselection, so far
	dissolved    bool // the last relation was made a dissolution (emit)
	seats        []seat

	prominent *zipf // over actors by prominence
	localZipf *zipf // over the actors of a town, by prominence
	orgZipf   *zipf
	entParty  []int16 // each entity's home party (actors only), or -1

	sourceNames  []graph.SourceName
	yearStart    [years + 1]int // sources of year y are sourceNames[yearStart[y-FirstYear]:yearStart[y-FirstYear+1]]
	sourceZipf   *zipf
	datasets     map[string]graph.SourceName // "general-2010" → dataset source
	relationSeen *hashSet
	done         bool
}

// Generate writes a synthetic graph of cfg.Relations relations to sink and describes it.
func Generate(cfg Config, sink Sink) (Stats, error) {
	if cfg.Relations < MinRelations {
		return Stats{}, fmt.Errorf("synth: %d relations is too few; at least %d", cfg.Relations, MinRelations)
	}
	g := &generator{
		r:        rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed_9e37_79b9_7f4a)),
		n:        cfg.Relations,
		sink:     sink,
		slugs:    map[string]int{},
		stats:    Stats{ByKind: map[graph.Kind]int{}, ByType: map[graph.RelationType]int{}},
		datasets: map[string]graph.SourceName{}, branchOf: map[[2]int32]int32{},
		relationSeen: newHashSet(cfg.Relations),
	}
	for _, step := range []func() error{g.writeSources, g.makeEntities, g.writeEntities} {
		if err := step(); err != nil {
			return g.stats, err
		}
	}
	g.slugs = nil // no longer needed: let it go before the long part
	for _, step := range []func() error{g.structure, g.memberships, g.elections, g.social} {
		if err := step(); err != nil {
			return g.stats, err
		}
	}
	return g.stats, nil
}

// --- small helpers --------------------------------------------------------------------------------------

func (g *generator) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

// year draws a year, recent years more often (there is more coverage of them).
func (g *generator) year() int {
	return FirstYear + min(int(float64(years)*math.Sqrt(g.r.Float64())), years-1)
}

func (g *generator) day(y int) graph.FuzzyDate {
	return graph.FuzzyDate{Year: y, Month: 1 + g.r.IntN(12), Day: 1 + g.r.IntN(28)}
}

// eventDate is a day, sometimes known only to the month.
func (g *generator) eventDate(y int) graph.FuzzyDate {
	d := g.day(y)
	if g.chance(0.25) {
		d.Day = 0
	}
	return d
}

// slug makes a unique slug from a display name, with -2, -3, ... for namesakes.
func (g *generator) slug(display string) string {
	s := strings.ReplaceAll(graph.NormalizeName(display), " ", "-")
	if !graph.ValidSlug(s) {
		s = "x" + strconv.FormatUint(fnv64(display), 36)
	}
	n := g.slugs[s]
	g.slugs[s] = n + 1
	if n > 0 {
		s += "-" + strconv.Itoa(n+1)
		for g.slugs[s] > 0 { // "smith-2" may be a name of its own
			s += "x"
		}
		g.slugs[s] = 1
	}
	return s
}

func (g *generator) addEntity(coll, display string, kind graph.Kind) int32 {
	name := graph.EntityName(coll + "/" + g.slug(display))
	g.ents = append(g.ents, entity{name: name, display: display, kind: kind})
	return int32(len(g.ents) - 1)
}

// --- sources ------------------------------------------------------------------------------------------

func (g *generator) writeSources() error {
	total := max(50, g.n/4)
	g.sourceNames = make([]graph.SourceName, 0, total+len(generalElections)+len(localElections)+len(mayoralElections))
	for i := 0; i < total; i++ {
		y := FirstYear + i*years/total
		d := g.day(y)
		outlet := g.pick(outletNames)
		src := graph.Source{Kind: graph.SourceArticle, Outlet: outlet, Published: d,
			Title:  g.pick(townHeads) + g.pick(townTails) + ": " + g.pick(headlines),
			Author: g.pick(firstNames) + " " + g.pick(surnames)}
		oslug := strings.ReplaceAll(graph.NormalizeName(outlet), " ", "-")
		if g.chance(0.15) {
			src.Kind, src.Outlet = graph.SourceSocialPost, ""
			src.Title = "Post by " + src.Author + " on " + g.pick(headlines)
			oslug = "post"
		}
		src.Name = graph.SourceName(fmt.Sprintf("sources/%s-%s-%s", oslug, d, strconv.FormatInt(int64(i), 36)))
		src.URL = "https://news.example/" + graph.Slug(src.Name)
		g.sourceNames = append(g.sourceNames, src.Name)
		if err := g.sink.WriteSource(src); err != nil {
			return err
		}
	}
	for k := range g.yearStart { // source i is of year FirstYear + i*years/total
		g.yearStart[k] = (k*total + years - 1) / years
	}
	g.sourceZipf = newZipf(max(1, total/years), 1.0, 5)
	for _, e := range []struct {
		kind  string
		dates []graph.FuzzyDate
	}{{"general", generalElections}, {"local", localElections}, {"mayoral", mayoralElections}} {
		for _, d := range e.dates {
			key := e.kind + "-" + strconv.Itoa(d.Year)
			src := graph.Source{Name: graph.SourceName("sources/election-results-" + key), Kind: graph.SourceDataset,
				Title: "Official results of the " + strconv.Itoa(d.Year) + " " + e.kind + " elections", Outlet: "Electoral Commission",
				Published: graph.FuzzyDate{Year: d.Year, Month: d.Month}}
			g.datasets[key] = src.Name
			if err := g.sink.WriteSource(src); err != nil {
				return err
			}
		}
	}
	g.stats.Sources = total + len(g.datasets)
	return nil
}

// source draws an article or post from around year y; a few sources are cited very often.
func (g *generator) source(y int) graph.SourceName {
	y = min(max(y, FirstYear), LastYear) - FirstYear
	lo, hi := g.yearStart[y], g.yearStart[y+1]
	if hi <= lo {
		return g.sourceNames[g.r.IntN(len(g.sourceNames))]
	}
	return g.sourceNames[lo+g.sourceZipf.draw(g.r)%(hi-lo)]
}

// --- entities -----------------------------------------------------------------------------------------

func (g *generator) makeEntities() error {
	n := g.n
	nParties := min(len(partyWords), 3+int(2*math.Log10(float64(n)/1000)+0.5))
	nTowns := max(5, n/2000)
	nActors := max(60, n/6)

	// Towns and their councils.
	seenTown := map[string]bool{}
	for len(g.towns) < nTowns {
		t := g.pick(townHeads) + g.pick(townTails)
		if seenTown[t] {
			if len(seenTown) >= len(townHeads)*len(townTails)/2 {
				t += " " + strconv.Itoa(len(g.towns))
			} else {
				continue
			}
		}
		seenTown[t] = true
		g.towns = append(g.towns, t)
	}
	for _, t := range g.towns {
		g.councils = append(g.councils, g.addEntity("organisations", t+" Council", graph.KindOrganisation))
	}
	for i := 0; i < nParties; i++ {
		g.parties = append(g.parties, g.addEntity("parties", partyWords[i], graph.KindParty))
	}
	// Local branches: the big parties have one in most towns.
	partyShare := newZipf(nParties, 1.0, 1)
	for i := 0; i < max(nParties, n/300); i++ {
		p := int16(partyShare.draw(g.r))
		town := int32(g.r.IntN(len(g.towns)))
		key := [2]int32{int32(p), town}
		if _, ok := g.branchOf[key]; ok {
			continue
		}
		id := g.addEntity("organisations", partyWords[p]+" "+g.towns[town]+" Branch", graph.KindOrganisation)
		g.branchOf[key] = id
		g.branches = append(g.branches, id)
		g.branchParty = append(g.branchParty, p)
	}
	for _, o := range outletNames {
		g.outlets = append(g.outlets, g.addEntity("organisations", o, graph.KindOrganisation))
	}
	g.court = g.addEntity("organisations", "Election Court", graph.KindOrganisation)
	for i := 0; i < max(5, n/400); i++ {
		g.orgs = append(g.orgs, g.addEntity("organisations", g.towns[g.r.IntN(len(g.towns))]+" "+g.pick(orgKinds), graph.KindOrganisation))
	}
	g.orgZipf = newZipf(len(g.orgs)+len(g.outlets), 1.0, 2)

	// Seats: lineages of seats, each replaced by the next at a boundary review.
	lineages := max(10, n/150)
	mayors := map[int32]bool{}
	for i := 0; i < lineages; i++ {
		town := int32(g.r.IntN(len(g.towns)))
		kind := ward
		switch u := g.r.Float64(); {
		case u < 0.35:
			kind = constituency
		case u < 0.40 && !mayors[town]:
			kind, mayors[town] = office, true
		}
		from, prev := FirstYear, int32(-1)
		for gen := 0; ; gen++ {
			s := seat{kind: kind, town: town, from: from, successor: -1}
			if kind != office && gen < len(boundaryReviews) && g.chance(0.3) {
				s.to = boundaryReviews[gen]
			}
			var display string
			switch kind {
			case constituency:
				display = g.towns[town] + " " + g.pick(compass)
			case ward:
				display = g.pick(wardNames) + ", " + g.towns[town]
			case office:
				display = "Mayor of " + g.towns[town]
			}
			s.id = g.addEntity("seats", display, graph.KindSeat)
			if prev >= 0 {
				g.seats[len(g.seats)-1].successor = s.id
			}
			g.seats = append(g.seats, s)
			if s.to == 0 {
				break
			}
			from, prev = s.to, s.id
		}
	}

	// Actors, most prominent first: prominent ones nearly always have a party.
	g.partyMembers = make([][]int32, nParties)
	g.townActors = make([][]int32, len(g.towns))
	for i := 0; i < nActors; i++ {
		display := g.pick(firstNames) + " " + g.personSurname()
		a := actor{party: -1, town: int32(g.r.IntN(len(g.towns)))}
		if i < nActors/50 || g.chance(0.7) {
			a.party = int16(partyShare.draw(g.r))
		}
		a.id = g.addEntity("actors", display, graph.KindActor)
		if a.party >= 0 {
			g.partyMembers[a.party] = append(g.partyMembers[a.party], a.id)
		}
		g.townActors[a.town] = append(g.townActors[a.town], a.id)
		g.actors = append(g.actors, a)
	}
	for _, ms := range g.partyMembers {
		g.partyZipf = append(g.partyZipf, newZipf(max(len(ms), 1), 1.0, 3))
	}
	g.prominent = newZipf(nActors, 1.0, 5)
	biggest := 0
	for _, l := range g.townActors {
		biggest = max(biggest, len(l))
	}
	g.localZipf = newZipf(biggest, 1.0, 3)
	g.entParty = make([]int16, len(g.ents))
	for i := range g.entParty {
		g.entParty[i] = -1
	}
	for _, a := range g.actors {
		g.entParty[a.id] = a.party
	}
	return nil
}

func (g *generator) personSurname() string {
	s := g.pick(surnames)
	if g.chance(0.6) {
		s = g.pick(surnameHeads) + g.pick(surnameTails)
	}
	if g.chance(0.05) {
		s += "-" + g.pick(surnames)
	}
	return s
}

func (g *generator) writeEntities() error {
	actorAt := map[int32]int{}
	for i, a := range g.actors {
		actorAt[a.id] = i
	}
	seatAt := map[int32]int{}
	for i, s := range g.seats {
		seatAt[s.id] = i
	}
	founded := map[int32]bool{} // the organisations a FOUNDED relation dates (relations())
	for _, o := range g.orgs {
		founded[o] = true
	}
	g.stats.Degrees = make([]int32, len(g.ents))
	for id, e := range g.ents {
		out := graph.Entity{Name: e.name, Kind: e.kind, DisplayName: e.display}
		switch e.kind {
		case graph.KindActor:
			a := g.actors[actorAt[int32(id)]]
			out.Description = "Politician in " + g.towns[a.town] + "."
			if a.party >= 0 {
				out.Description = partyWords[a.party] + " politician in " + g.towns[a.town] + "."
			}
			first, last, _ := strings.Cut(e.display, " ")
			initial, _ := utf8.DecodeRuneInString(first)
			switch u := g.r.Float64(); {
			case u < 0.12:
				out.Aliases = []string{string(initial) + ". " + last}
			case u < 0.18:
				out.Aliases = []string{"Cllr " + e.display}
			}
			if actorAt[int32(id)] < len(g.actors)/20 {
				out.Identifiers = graph.Identifiers{"wikidata": {"Q" + strconv.Itoa(1_000_000+id)}}
			}
		case graph.KindParty:
			var initials strings.Builder
			for _, w := range strings.Fields(e.display) {
				initials.WriteByte(w[0])
			}
			out.Aliases = []string{initials.String()}
			out.Description = "Political party."
			// Founded before the records start, so that none of its relations comes before it (the draw is
			// kept so that the rest of the graph stays as it was).
			out.ValidFrom = graph.FuzzyDate{Year: min(FirstYear-40+g.r.IntN(50), FirstYear)}
		case graph.KindSeat:
			s := g.seats[seatAt[int32(id)]]
			if s.from > FirstYear {
				out.ValidFrom = graph.FuzzyDate{Year: s.from}
			}
			if s.to != 0 {
				out.ValidTo = graph.FuzzyDate{Year: s.to}
			}
			switch s.kind {
			case constituency:
				out.Description = "Parliamentary constituency."
				out.Identifiers = graph.Identifiers{"ocd": {"ocd-division/country:gb/synthetic:" + graph.Slug(e.name)}}
			case ward:
				out.Description = "Council ward."
			case office:
				out.Description = "Directly elected mayoralty."
			}
		case graph.KindOrganisation:
			out.Description = "Organisation."
			if founded[int32(id)] {
				// Its founding, as its FOUNDED relation dates it: written here, so that the file says it
				// as the graph reads it (dataset.Read would take it from that relation).
				out.ValidFrom = graph.FuzzyDate{Year: FirstYear}
			}
			if len(g.orgs) > 0 && int32(id) == g.orgs[0] {
				// Its dissolution, the graph's last relation (emit), as the graph reads it too.
				out.ValidTo = graph.FuzzyDate{Year: LastYear}
			}
		}
		if err := g.sink.WriteEntity(out); err != nil {
			return err
		}
		g.stats.ByKind[e.kind]++
	}
	g.stats.Entities = len(g.ents)
	return nil
}

// --- relations ----------------------------------------------------------------------------------------

// rel is a relation to write, by entity index.
type rel struct {
	t                  graph.RelationType
	from, to, via      int32 // via -1 when none
	role               string
	validFrom, validTo graph.FuzzyDate
	date               graph.FuzzyDate
	year               int    // when it happened, for sources and keys
	excerpt            string // what the first claim's source says
	denial             string // what a denying source says; "" for the type's default
	saidBy             int32  // who makes the claims, -1 for the source's author
	evidence           graph.SourceName
}

// emit writes a relation with its claims, unless the graph is complete. Two relations of one type between
// the same pair are told apart by a key (the year), as in hand-made datasets.
func (g *generator) emit(x rel) error {
	if g.done || x.from == x.to {
		return nil
	}
	if g.stats.Relations == g.n-1 && !g.dissolved && len(g.orgs) > 0 && len(g.actors) > 0 {
		// The last relation is an organisation's dissolution, at the end of the records' last year: no
		// relation of it comes after, and the graph before it is what it was before the type existed.
		g.dissolved = true
		o, by := g.orgs[0], g.actors[0].id
		x = rel{t: graph.Dissolved, from: by, to: o, via: -1, saidBy: -1, year: LastYear, date: graph.FuzzyDate{Year: LastYear},
			excerpt: g.ents[by].display + " wound up " + g.ents[o].display + " in " + strconv.Itoa(LastYear) + "."}
	}
	from, to := g.ents[x.from].name, g.ents[x.to].name
	if x.t.Symmetric() && to < from {
		from, to = to, from
	}
	key := ""
	name := graph.RelationNameFor(from, x.t, to, key)
	for i := 1; !g.relationSeen.add(fnv64(string(name))); i++ {
		key = strconv.Itoa(x.year)
		if i > 1 {
			key += "-" + strconv.Itoa(i)
		}
		name = graph.RelationNameFor(from, x.t, to, key)
	}
	if key != "" {
		g.stats.KeyedRelations++
	}
	r := graph.Relation{Name: name, Type: x.t, From: from, To: to, Role: x.role,
		ValidFrom: x.validFrom, ValidTo: x.validTo, Date: x.date}
	if x.via >= 0 {
		r.Via = g.ents[x.via].name
	}
	r.Claims = g.claims(x, name)
	if err := g.sink.WriteRelation(r); err != nil {
		return err
	}
	g.count(r, x)
	return nil
}

func (g *generator) count(r graph.Relation, x rel) {
	s := &g.stats
	s.Relations++
	s.ByType[r.Type]++
	s.Claims += len(r.Claims)
	s.Degrees[x.from]++
	s.Degrees[x.to]++
	denied := 0
	for _, c := range r.Claims {
		if c.Status == graph.StatusDenied {
			denied++
		}
	}
	s.DeniedClaims += denied
	switch {
	case denied > 0 && denied == len(r.Claims):
		s.OnlyDeniedRelations++
	case denied > 0:
		s.DisputedRelations++
	}
	if len(r.Claims) > 1 {
		s.MultiClaimRelations++
	}
	if s.Relations >= g.n {
		g.done = true
	}
}

// deniable types sometimes have a source saying the relation is not so.
var deniable = map[graph.RelationType]float64{
	graph.Endorses: 0.08, graph.Accused: 0.10, graph.Family: 0.05, graph.FormerlyWorkedWith: 0.04,
	graph.CampaignedWith: 0.05, graph.MemberOf: 0.01, graph.AppearedWith: 0.03, graph.Criticised: 0.03,
}

// claims makes one to five claims from distinct sources, most REPORTED; accusations are ALLEGED by the
// accuser; electoral facts are CONFIRMED by the results; some relations are DENIED by a later source.
func (g *generator) claims(x rel, relName graph.RelationName) []graph.Claim {
	n := 1
	switch u := g.r.Float64(); {
	case u < 0.55:
	case u < 0.80:
		n = 2
	case u < 0.92:
		n = 3
	case u < 0.97:
		n = 4
	default:
		n = 5
	}
	deny := g.chance(deniable[x.t])
	onlyDenied := deny && x.t == graph.Endorses && g.chance(0.4)
	if deny && !onlyDenied && n == 1 {
		n = 2
	}
	if onlyDenied {
		n = 1
	}
	out := make([]graph.Claim, 0, n)
	used := make([]graph.SourceName, 0, n)
	for i := 0; i < n; i++ {
		var src graph.SourceName
		if i == 0 && x.evidence != "" {
			src = x.evidence
		} else {
			for try := 0; try < 6; try++ {
				if s := g.source(x.year + g.r.IntN(2)); !slices.Contains(used, s) {
					src = s
					break
				}
			}
		}
		if src == "" {
			continue
		}
		used = append(used, src)
		c := graph.Claim{Name: graph.ClaimNameFor(relName, src, ""), Source: graph.Source{Name: src},
			Excerpt: x.excerpt, Confidence: 0.5 + 0.05*float64(g.r.IntN(10)), Status: graph.StatusReported}
		switch {
		case (deny && i == n-1) || onlyDenied:
			c.Status, c.Excerpt = graph.StatusDenied, x.denialText(g)
			c.Confidence = 0.6 + 0.05*float64(g.r.IntN(8))
			if g.ents[x.to].kind == graph.KindActor && x.t == graph.Accused {
				c.SaidBy = g.ents[x.to].name
			} else if g.ents[x.from].kind == graph.KindActor {
				c.SaidBy = g.ents[x.from].name
			}
		case i == 0 && x.evidence != "":
			c.Status, c.Confidence = graph.StatusConfirmed, 1
		case x.t == graph.Accused:
			c.Status = graph.StatusAlleged
			if g.chance(0.2) {
				c.Status = graph.StatusReported
			}
			if x.saidBy >= 0 {
				c.SaidBy = g.ents[x.saidBy].name
			}
		case g.chance(0.12):
			c.Status = graph.StatusConfirmed
		case g.chance(0.05):
			c.Status = graph.StatusAlleged
		}
		if i > 0 && c.Status != graph.StatusDenied {
			c.Excerpt = g.pick(reportedAs) + x.excerpt
		}
		out = append(out, c)
	}
	return out
}

var reportedAs = []string{"According to several reports, ", "It was reported that ", "Sources said that ", "Records show that "}

func (x rel) denialText(g *generator) string {
	if x.denial != "" {
		return x.denial
	}
	a, b := g.ents[x.from].display, g.ents[x.to].display
	switch x.t {
	case graph.Accused:
		return b + " denied the accusation made by " + a + "."
	case graph.Endorses:
		return a + " denied ever endorsing " + b + "."
	case graph.Family:
		return a + " said they are not related to " + b + "."
	case graph.MemberOf:
		return a + " denied being a member of " + b + "."
	}
	return a + " denied any link with " + b + "."
}

// structure writes the fixed skeleton: branches in parties, wards in councils, seats replaced by their
// successors, founders and leaders.
func (g *generator) structure() error {
	for i, b := range g.branches {
		y := FirstYear + g.r.IntN(15)
		p := g.parties[g.branchParty[i]]
		if err := g.emit(rel{t: graph.PartOf, from: b, to: p, via: -1, saidBy: -1, year: y, validFrom: graph.FuzzyDate{Year: y},
			excerpt: g.ents[b].display + " is the local branch of " + g.ents[p].display + "."}); err != nil {
			return err
		}
	}
	for _, s := range g.seats {
		if s.kind == constituency {
			continue
		}
		c := g.councils[s.town]
		if err := g.emit(rel{t: graph.PartOf, from: s.id, to: c, via: -1, saidBy: -1, year: max(s.from, FirstYear),
			excerpt: g.ents[s.id].display + " is part of " + g.ents[c].display + "."}); err != nil {
			return err
		}
		if s.successor >= 0 {
			if err := g.emit(rel{t: graph.SucceededBy, from: s.id, to: s.successor, via: -1, saidBy: -1, year: s.to,
				date:    graph.FuzzyDate{Year: s.to},
				excerpt: g.ents[s.id].display + " was replaced by " + g.ents[s.successor].display + " at the " + strconv.Itoa(s.to) + " boundary review."}); err != nil {
				return err
			}
		}
	}
	for _, s := range g.seats {
		if s.kind == constituency && s.successor >= 0 {
			if err := g.emit(rel{t: graph.SucceededBy, from: s.id, to: s.successor, via: -1, saidBy: -1, year: s.to,
				date:    graph.FuzzyDate{Year: s.to},
				excerpt: g.ents[s.id].display + " was abolished in " + strconv.Itoa(s.to) + " and replaced by " + g.ents[s.successor].display + "."}); err != nil {
				return err
			}
		}
	}
	// Founders and successive leaders of each party, drawn from its most prominent members.
	for p, pid := range g.parties {
		members := g.partyMembers[p]
		if len(members) == 0 {
			continue
		}
		f := members[g.partyZipf[p].draw(g.r)]
		y := FirstYear + g.r.IntN(5)
		if err := g.emit(rel{t: graph.Founded, from: f, to: pid, via: -1, saidBy: -1, year: y, date: graph.FuzzyDate{Year: y},
			excerpt: g.ents[f].display + " was among the founders of " + g.ents[pid].display + "."}); err != nil {
			return err
		}
		for y := FirstYear; y <= LastYear; {
			leader := members[g.partyZipf[p].draw(g.r)]
			end := y + 2 + g.r.IntN(7)
			x := rel{t: graph.Leads, from: leader, to: pid, via: -1, saidBy: -1, year: y, role: "Leader",
				validFrom: graph.FuzzyDate{Year: y, Month: 1 + g.r.IntN(12)},
				excerpt:   g.ents[leader].display + " was elected leader of " + g.ents[pid].display + " in " + strconv.Itoa(y) + "."}
			if end <= LastYear {
				x.validTo = graph.FuzzyDate{Year: end}
			}
			if err := g.emit(x); err != nil {
				return err
			}
			y = end + 1
		}
	}
	// Branch chairs and council leaders, from the branch's party or the council's town.
	for i, b := range g.branches {
		p := g.branchParty[i]
		members := g.partyMembers[p]
		if len(members) == 0 {
			continue
		}
		for k := 0; k < 1+g.r.IntN(2); k++ {
			chair := members[g.r.IntN(len(members))]
			y := g.year()
			if err := g.emit(rel{t: graph.Leads, from: chair, to: b, via: -1, saidBy: -1, year: y, role: "Chair",
				validFrom: graph.FuzzyDate{Year: y}, validTo: graph.FuzzyDate{Year: min(y+1+g.r.IntN(4), LastYear)},
				excerpt: g.ents[chair].display + " chaired " + g.ents[b].display + " from " + strconv.Itoa(y) + "."}); err != nil {
				return err
			}
		}
	}
	for t, c := range g.councils {
		locals := g.townActors[t]
		if len(locals) == 0 {
			continue
		}
		for y := FirstYear + g.r.IntN(4); y <= LastYear; y += 4 + g.r.IntN(5) {
			l := locals[g.r.IntN(len(locals))]
			if err := g.emit(rel{t: graph.Leads, from: l, to: c, via: -1, saidBy: -1, year: y, role: "Leader of the council",
				validFrom: graph.FuzzyDate{Year: y, Month: 5}, validTo: graph.FuzzyDate{Year: min(y+4, LastYear), Month: 5},
				excerpt: g.ents[l].display + " became leader of " + g.ents[c].display + " in " + strconv.Itoa(y) + "."}); err != nil {
				return err
			}
		}
	}
	for _, o := range g.orgs {
		f := g.actors[g.r.IntN(len(g.actors))].id
		// An organisation without dates of its own exists from its founding: founded as the records start,
		// before any relation of it (the year is drawn as before, so the rest of the graph stays as it was).
		y := min(g.year(), FirstYear)
		if err := g.emit(rel{t: graph.Founded, from: f, to: o, via: -1, saidBy: -1, year: y, date: graph.FuzzyDate{Year: y},
			excerpt: g.ents[f].display + " set up " + g.ents[o].display + " in " + strconv.Itoa(y) + "."}); err != nil {
			return err
		}
	}
	return nil
}

// memberships writes each party member's membership (of the party or of its branch in their town), some
// ended, some followed by a move to another party, suspensions and resignations.
func (g *generator) memberships() error {
	for _, a := range g.actors {
		if g.done {
			return nil
		}
		if a.party < 0 {
			if g.chance(0.15) {
				o := g.orgs[g.r.IntN(len(g.orgs))]
				y := g.year()
				if err := g.emit(rel{t: graph.MemberOf, from: a.id, to: o, via: -1, saidBy: -1, year: y, validFrom: graph.FuzzyDate{Year: y},
					excerpt: g.ents[a.id].display + " is a member of " + g.ents[o].display + "."}); err != nil {
					return err
				}
			}
			continue
		}
		group := g.parties[a.party]
		if b, ok := g.branchOf[[2]int32{int32(a.party), a.town}]; ok && g.chance(0.5) {
			group = b
		}
		joined := FirstYear + g.r.IntN(years-3)
		x := rel{t: graph.MemberOf, from: a.id, to: group, via: -1, saidBy: -1, year: joined,
			validFrom: graph.FuzzyDate{Year: joined, Month: g.r.IntN(13)},
			excerpt:   g.ents[a.id].display + " joined " + g.ents[group].display + " in " + strconv.Itoa(joined) + "."}
		left := 0
		if g.chance(0.2) {
			left = joined + 1 + g.r.IntN(LastYear-joined)
			x.validTo = graph.FuzzyDate{Year: left}
		}
		if err := g.emit(x); err != nil {
			return err
		}
		if left > 0 {
			how := graph.ResignedFrom
			verb := " resigned from "
			if g.chance(0.3) {
				how, verb = graph.SuspendedFrom, " was suspended by "
			}
			if err := g.emit(rel{t: how, from: a.id, to: group, via: -1, saidBy: -1, year: left, date: g.eventDate(left),
				excerpt: g.ents[a.id].display + verb + g.ents[group].display + " in " + strconv.Itoa(left) + "."}); err != nil {
				return err
			}
			if left < LastYear && g.chance(0.5) {
				other := g.parties[g.r.IntN(len(g.parties))]
				if err := g.emit(rel{t: graph.MemberOf, from: a.id, to: other, via: -1, saidBy: -1, year: left,
					validFrom: graph.FuzzyDate{Year: left},
					excerpt:   g.ents[a.id].display + " joined " + g.ents[other].display + " after leaving " + g.ents[group].display + "."}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// elections writes, for every seat and election in its lifetime, the candidates (via their party), the
// winner's term of office (a re-elected incumbent's terms are one relation) and who the winner defeated.
func (g *generator) elections() error {
	for _, s := range g.seats {
		if g.done {
			return nil
		}
		dates, kind, role := generalElections, "general", "MP"
		switch s.kind {
		case ward:
			dates, kind, role = localElections, "local", "Councillor"
		case office:
			dates, kind, role = mayoralElections, "mayoral", "Mayor"
		}
		var held []graph.FuzzyDate // the elections this seat had
		for _, d := range dates {
			if d.Year >= s.from && (s.to == 0 || d.Year < s.to) {
				held = append(held, d)
			}
		}
		locals := g.townActors[s.town]
		if len(held) == 0 || len(locals) == 0 {
			continue
		}
		holder, since := int32(-1), graph.FuzzyDate{}
		for i, d := range held {
			evidence := g.datasets[kind+"-"+strconv.Itoa(d.Year)]
			winner := holder
			if winner < 0 || !g.chance(0.55) {
				winner = g.local(s.town)
			}
			cands := []int32{winner}
			if holder >= 0 && holder != winner && g.chance(0.7) {
				cands = append(cands, holder) // the incumbent, defeated
			}
			for k := 0; k < 1+g.r.IntN(3); k++ {
				c := locals[g.r.IntN(len(locals))]
				if !slices.Contains(cands, c) {
					cands = append(cands, c)
				}
			}
			for _, c := range cands {
				x := rel{t: graph.CandidateFor, from: c, to: s.id, via: -1, saidBy: -1, year: d.Year, date: d, evidence: evidence,
					role: "Independent candidate", excerpt: g.ents[c].display + " stood in " + g.ents[s.id].display + " in " + strconv.Itoa(d.Year) + "."}
				if p := g.partyOf(c); p >= 0 {
					x.via, x.role = g.parties[p], partyWords[p]+" candidate"
				}
				if err := g.emit(x); err != nil {
					return err
				}
			}
			if len(cands) > 1 {
				if err := g.emit(rel{t: graph.Defeated, from: winner, to: cands[1], via: -1, saidBy: -1, year: d.Year, date: d, evidence: evidence,
					excerpt: g.ents[winner].display + " defeated " + g.ents[cands[1]].display + " in " + g.ents[s.id].display + " in " + strconv.Itoa(d.Year) + "."}); err != nil {
					return err
				}
			}
			if winner != holder {
				if holder >= 0 {
					if err := g.term(s, holder, since, d, role, kind); err != nil {
						return err
					}
				}
				holder, since = winner, d
			}
			if i == len(held)-1 {
				end := graph.FuzzyDate{}
				if s.to != 0 {
					end = graph.FuzzyDate{Year: s.to}
				}
				if err := g.term(s, holder, since, end, role, kind); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// partyOf is an actor's home party, or -1.
func (g *generator) partyOf(id int32) int16 { return g.entParty[id] }

// local draws an actor of a town, the town's prominent people more often.
func (g *generator) local(town int32) int32 {
	locals := g.townActors[town]
	for {
		if k := g.localZipf.draw(g.r); k < len(locals) {
			return locals[k]
		}
	}
}

// term writes one holder's time in a seat, and now and then its early end by removal or resignation.
func (g *generator) term(s seat, holder int32, from, to graph.FuzzyDate, role, kind string) error {
	x := rel{t: graph.HoldsOffice, from: holder, to: s.id, via: -1, saidBy: -1, year: from.Year, role: role,
		validFrom: graph.FuzzyDate{Year: from.Year, Month: from.Month}, evidence: g.datasets[kind+"-"+strconv.Itoa(from.Year)],
		excerpt: g.ents[holder].display + " was elected " + role + " for " + g.ents[s.id].display + " in " + strconv.Itoa(from.Year) + "."}
	if !to.IsZero() {
		x.validTo = graph.FuzzyDate{Year: to.Year, Month: to.Month}
	}
	if err := g.emit(x); err != nil {
		return err
	}
	last := LastYear
	if !to.IsZero() {
		last = to.Year
	}
	if last <= from.Year {
		return nil
	}
	y := from.Year + g.r.IntN(last-from.Year)
	switch u := g.r.Float64(); {
	case u < 0.01:
		// Every other early end of this kind is a party's deselection, the rest removals by the court:
		// drawn as the removals alone were before deselections had a type, so the graph is otherwise
		// what it was.
		if g.removals++; g.removals%2 == 0 {
			return g.emit(rel{t: graph.Deselected, from: holder, to: s.id, via: -1, saidBy: -1, year: y, date: g.day(y), role: role,
				excerpt: g.ents[holder].display + " was deselected as their party's candidate for " + g.ents[s.id].display + "."})
		}
		return g.emit(rel{t: graph.RemovedFromOffice, from: holder, to: s.id, via: g.court, saidBy: -1, year: y, date: g.day(y), role: role,
			excerpt: g.ents[holder].display + " was removed as " + role + " for " + g.ents[s.id].display + " by the Election Court."})
	case u < 0.03:
		return g.emit(rel{t: graph.ResignedFrom, from: holder, to: s.id, via: -1, saidBy: -1, year: y, date: g.eventDate(y), role: role,
			excerpt: g.ents[holder].display + " resigned as " + role + " for " + g.ents[s.id].display + "."})
	}
	return nil
}

// socialTypes are the ties between people and groups that fill the graph, with their weights.
var socialTypes = []struct {
	t graph.RelationType
	w int
}{
	{graph.Endorses, 18}, {graph.Criticised, 18}, {graph.Accused, 8}, {graph.FormerlyWorkedWith, 14},
	{graph.AppearedWith, 17}, {graph.CampaignedWith, 12}, {graph.Family, 3},
}

// social fills the graph up to its size with endorsements, criticisms, accusations and ties between
// people. One end is usually a prominent figure (drawn by Zipf), the other as often anybody, so that
// a few figures gather thousands of links while most people have a handful.
func (g *generator) social() error {
	total := 0
	for _, s := range socialTypes {
		total += s.w
	}
	person := func() int32 {
		if g.chance(0.5) {
			return g.actors[g.prominent.draw(g.r)].id
		}
		return g.actors[g.r.IntN(len(g.actors))].id
	}
	group := func() int32 {
		if g.chance(0.5) {
			return g.parties[g.r.IntN(len(g.parties))]
		}
		k := g.orgZipf.draw(g.r)
		if k < len(g.outlets) {
			return g.outlets[k]
		}
		return g.orgs[k-len(g.outlets)]
	}
	for guard := 0; !g.done; guard++ {
		if guard > 50*g.n {
			return fmt.Errorf("synth: cannot find %d distinct relations", g.n)
		}
		k := g.r.IntN(total)
		var t graph.RelationType
		for _, s := range socialTypes {
			if k < s.w {
				t = s.t
				break
			}
			k -= s.w
		}
		y := g.year()
		x := rel{t: t, via: -1, saidBy: -1, year: y}
		a := g.actors[g.prominent.draw(g.r)].id
		b := person()
		switch t {
		case graph.Endorses:
			x.from, x.to, x.date = b, a, g.eventDate(y)
			if g.chance(0.12) {
				x.from = group()
				if g.ents[x.from].kind == graph.KindOrganisation && g.chance(0.5) {
					x.to = g.parties[g.r.IntN(len(g.parties))]
				}
			}
			x.excerpt = g.ents[x.from].display + " endorsed " + g.ents[x.to].display + " in " + strconv.Itoa(y) + "."
		case graph.Criticised, graph.Accused:
			x.from, x.to, x.date = b, a, g.eventDate(y)
			if g.chance(0.15) {
				x.from = group()
			}
			if g.chance(0.08) {
				x.to = group()
			}
			x.saidBy = x.from
			if t == graph.Criticised {
				x.excerpt = g.ents[x.from].display + " criticised " + g.ents[x.to].display + " over the " + g.pick(headlines) + " story."
			} else {
				x.excerpt = g.ents[x.from].display + " accused " + g.ents[x.to].display + " of " + g.pick(wrongs) + "."
			}
		case graph.FormerlyWorkedWith:
			x.from, x.to = a, b
			end := min(y+1+g.r.IntN(6), LastYear)
			x.validFrom, x.validTo = graph.FuzzyDate{Year: y}, graph.FuzzyDate{Year: end}
			x.excerpt = g.ents[a].display + " worked alongside " + g.ents[b].display + " until " + strconv.Itoa(end) + "."
		case graph.AppearedWith:
			x.from, x.to, x.date = a, b, g.eventDate(y)
			x.excerpt = g.ents[a].display + " appeared with " + g.ents[b].display + " at a rally in " + strconv.Itoa(y) + "."
		case graph.CampaignedWith:
			x.from, x.to, x.date = a, b, g.eventDate(y)
			x.excerpt = g.ents[a].display + " campaigned with " + g.ents[b].display + " in " + strconv.Itoa(y) + "."
		case graph.Family:
			// Family ties do not follow prominence: two people of one town.
			ta := g.actors[g.r.IntN(len(g.actors))]
			locals := g.townActors[ta.town]
			x.from, x.to = ta.id, locals[g.r.IntN(len(locals))]
			x.role = g.pick(familyRoles)
			x.excerpt = g.ents[x.from].display + " and " + g.ents[x.to].display + " are family (" + x.role + ")."
		}
		if err := g.emit(x); err != nil {
			return err
		}
	}
	return nil
}

// Typo changes one letter of the longest word of a name (swaps two, drops one, doubles one or replaces
// one), as a hurried user would: the search texts of the benchmarks.
func Typo(r *rand.Rand, name string) string {
	words := strings.Fields(name)
	best := -1
	for i, w := range words {
		if utf8.RuneCountInString(w) >= 5 && (best < 0 || utf8.RuneCountInString(w) > utf8.RuneCountInString(words[best])) {
			best = i
		}
	}
	if best < 0 {
		return name
	}
	w := []rune(words[best])
	i := 1 + r.IntN(len(w)-2)
	switch r.IntN(4) {
	case 0:
		w[i], w[i+1] = w[i+1], w[i]
	case 1:
		w = slices.Delete(w, i, i+1)
	case 2:
		w = slices.Insert(w, i, w[i])
	default:
		w[i] = rune('a' + r.IntN(26))
	}
	words[best] = string(w)
	return strings.Join(words, " ")
}
