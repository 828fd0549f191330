package ingest

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// Holding is a post the graph says a person held: a party's leadership (LEADS) or an office
// (HOLDS_OFFICE), over the period its relation holds.
type Holding struct {
	Holder, Post graph.EntityName
	Type         graph.RelationType
	Period       graph.Period
	Relation     graph.RelationName
}

// Holdings reads, from the links of the parties and offices among ents, who led each party and held
// each office, and when: relations that count under the default filter (a denied leadership is none) and
// that have a date (an undated one says nothing of a document's day).
func Holdings(ctx context.Context, links graph.LinkSource, ents []graph.Entity) ([]Holding, error) {
	var posts []graph.EntityName
	for _, e := range ents {
		if e.Deleted.IsZero() && (e.Kind == graph.KindParty || e.Kind == graph.KindSeat) {
			posts = append(posts, e.Name)
		}
	}
	var out []Holding
	for start := 0; start < len(posts); start += 500 {
		got, err := links.Links(ctx, posts[start:min(start+500, len(posts))])
		if err != nil {
			return nil, err
		}
		for _, p := range posts[start:min(start+500, len(posts))] {
			for _, l := range got[p] {
				if h, ok := holdingOf(l); ok && l.To == p {
					out = append(out, h)
				}
			}
		}
	}
	return out, nil
}

// HoldingsOf reads the holdings of relations given whole (a dataset's, where no store answers Links), as
// Holdings reads a store's.
func HoldingsOf(rels []graph.Relation) []Holding {
	var out []Holding
	for _, r := range rels {
		if h, ok := holdingOf(r.Link()); ok {
			out = append(out, h)
		}
	}
	return out
}

// holdingOf is the holding a link makes: a dated LEADS or HOLDS_OFFICE that counts under the default
// filter (a denied leadership is none; an undated one says nothing of a document's day).
func holdingOf(l graph.Link) (Holding, bool) {
	if l.Type != graph.Leads && l.Type != graph.HoldsOffice || !l.Dated || !(graph.RelationFilter{}).Counts(l) {
		return Holding{}, false
	}
	return Holding{Holder: l.From, Post: l.To, Type: l.Type, Period: l.Effective(), Relation: l.Name}, true
}

// NewGraphReader is NewReader that also knows who held the graph's parties' leaderships and its offices
// (Holdings): "the Tory leader" and "the home secretary" in a dated document mean whoever held the post
// on its date, when one person did.
func NewGraphReader(known []graph.Entity, holdings []Holding) *Reader {
	r := NewReader(known)
	r.holdings = map[graph.EntityName][]Holding{}
	for _, h := range holdings {
		r.holdings[h.Post] = append(r.holdings[h.Post], h)
	}
	return r
}

var (
	// descriptionBefore ends the words before a post described without its holder's name: "the".
	descriptionBefore = regexp.MustCompile(`(?i)\bthe\s+$`)
	// leaderAfter follows a party named as its leader's description: "the Tory leader".
	leaderAfter = regexp.MustCompile(`^(?:'s|’s)?\s+leader\b`)
)

// describe resolves descriptions of a post without its holder's name ("the Tory leader", "the home
// secretary") to the one person the graph says held it on the document's date; the mention then names
// that person, with the relation that resolved it.
func (rd *reading) describe() {
	holdings := rd.holdings
	named := rd.namedHolders()
	// When: the document's date, or the span it dates from; neither, and only the document resolves.
	on, dated := rd.when()
	// The people the document names, for "the prime minister" in an undated one: the one of them who
	// ever held the post.
	var people []*entry
	for _, ms := range rd.mentions {
		for _, m := range ms {
			if m.ent != nil && m.ent.kind == graph.KindActor && !m.pronoun && !slices.Contains(people, m.ent) {
				people = append(people, m.ent)
			}
		}
	}
	for si := range rd.mentions {
		s := &rd.sentences[si]
		ms := rd.mentions[si]
		for mi := range ms {
			m := &ms[mi]
			start, end := m.span.Start-s.span.Start, m.span.End-s.span.Start
			the := descriptionBefore.FindStringIndex(s.text[:start])
			if the == nil {
				continue
			}
			var typ graph.RelationType
			switch {
			case m.ent.kind == graph.KindParty:
				loc := leaderAfter.FindStringIndex(s.text[end:])
				if loc == nil || partLeader.MatchString(s.text[end+loc[1]:]) {
					continue // "the Tory leader in the Lords" leads part of the party
				}
				typ, end = graph.Leads, end+loc[1]
			case m.ent.kind == graph.KindSeat && !m.ent.constituency:
				typ = graph.HoldsOffice
			default:
				continue
			}
			// "the home secretary, Charles Clarke" and "the Tory leader Michael Howard" name the holder.
			if mi+1 < len(ms) && ms[mi+1].ent.kind == graph.KindActor &&
				strings.Trim(s.text[end:ms[mi+1].span.Start-s.span.Start], " ,") == "" {
				continue
			}
			// So does "Rachel Hopkins, the shadow veterans minister".
			if mi > 0 && ms[mi-1].ent != nil && ms[mi-1].ent.kind == graph.KindActor &&
				strings.TrimSpace(s.text[ms[mi-1].span.End-s.span.Start:the[0]]) == "," {
				continue
			}
			text := s.text[the[0]:end]
			hs, source := rd.holdingsOf(m.ent.name), ""
			if len(holdings[m.ent.name]) == 0 {
				source = " (polgraph's record)"
			}
			h, ok := Holding{}, false
			if dated {
				h, ok = heldOn(hs, typ, on)
			}
			var holder *entry
			if ok {
				holder = rd.holderEntry(h.Holder)
			}
			if holder == nil && !dated {
				// Undated: the one person the document names who ever held the post ("Mr Blair … the
				// prime minister" is Tony Blair).
				if es, held := holdersAmong(hs, typ, people); len(es) == 1 && len(named[postKey{m.ent, typ}]) == 0 {
					h, holder = held[0], es[0]
					source = ", named in the document" + source
				}
			}
			if holder == nil {
				// The document itself names the holder ("Chancellor Gordon Brown … the chancellor said"):
				// the one person it gives that post.
				ps := named[postKey{m.ent, typ}]
				if len(ps) != 1 {
					// No one, or several: not guessed. Several are left as candidates, each proposed for review.
					m.candidates, m.note = rd.candidatesFor(text, m.ent, typ, ps, hs, on, dated, people)
					continue
				}
				holder = ps[0]
				m.note = fmt.Sprintf("%s → %s, named %s of %s in the document", text, holder.display, typ, m.ent.display)
				m.post, m.ent, m.kind, m.text = m.ent, holder, graph.KindActor, text
				m.span = review.Span{Start: s.span.Start + the[0], End: s.span.Start + end}
				continue
			}
			m.note = fmt.Sprintf("%s → %s, %s %s %s%s", text, holder.display, h.Type, m.ent.display, periodText(h.Period), source)
			m.post, m.ent, m.kind, m.text = m.ent, holder, graph.KindActor, text
			m.span = review.Span{Start: s.span.Start + the[0], End: s.span.Start + end}
		}
	}
}

// postKey is a post (an office, or a party's leadership) and the relation that holds it.
type postKey struct {
	post *entry
	typ  graph.RelationType
}

// namedHolders reads who the document itself names as holding each post: an office before or after a
// name ("Chancellor Gordon Brown", "Charles Clarke, the home secretary") and a party's leader before a
// name ("Tory leader Michael Howard"). A post given to several people has them all.
func (rd *reading) namedHolders() map[postKey][]*entry {
	out := map[postKey][]*entry{}
	add := func(post *entry, typ graph.RelationType, who *entry) {
		k := postKey{post, typ}
		if !slices.Contains(out[k], who) {
			out[k] = append(out[k], who)
		}
	}
	for si := range rd.mentions {
		s := &rd.sentences[si]
		ms := rd.mentions[si]
		for i := 0; i+1 < len(ms); i++ {
			a, b := ms[i], ms[i+1]
			if a.ent == nil || b.ent == nil {
				continue
			}
			gap := strings.ToLower(strings.TrimSpace(s.text[a.span.End-s.span.Start : b.span.Start-s.span.Start]))
			switch {
			case a.ent.kind == graph.KindSeat && !a.ent.constituency && b.ent.kind == graph.KindActor && gap == "":
				add(a.ent, graph.HoldsOffice, b.ent)
			case a.ent.kind == graph.KindActor && b.ent.kind == graph.KindSeat && !b.ent.constituency && (gap == ", the" || gap == ","):
				add(b.ent, graph.HoldsOffice, a.ent)
			case a.ent.kind == graph.KindParty && b.ent.kind == graph.KindActor && (gap == "leader" || gap == "'s leader" || gap == "’s leader"):
				add(a.ent, graph.Leads, b.ent)
			}
		}
	}
	return out
}

// heldOn returns the one holding of type typ whose period covers all of the day span on; ok is false when
// none does, or several people's do.
func heldOn(hs []Holding, typ graph.RelationType, on graph.Period) (Holding, bool) {
	var found []Holding
	for _, h := range hs {
		if h.Type == typ && h.Period.Start <= on.Start && on.End <= h.Period.End &&
			!slices.ContainsFunc(found, func(f Holding) bool { return f.Holder == h.Holder }) {
			found = append(found, h)
		}
	}
	if len(found) != 1 {
		return Holding{}, false
	}
	return found[0], true
}

// periodText writes a period as its years: "2003–2005", "2003–" when it has no end.
func periodText(p graph.Period) string {
	year := func(day int) string { return graph.DayString(day)[:4] }
	switch {
	case p.Start == math.MinInt32 && p.End == math.MaxInt32:
		return "always"
	case p.Start == math.MinInt32:
		return "until " + year(p.End)
	case p.End == math.MaxInt32:
		return year(p.Start) + "–"
	}
	return year(p.Start) + "–" + year(p.End)
}

// oppositionParty is the party shadow posts belong to, and how that is known.
type oppositionParty struct {
	party *entry
	// why says how the party was found: "the party of Michael Howard, Leader of the Opposition 2003–2005".
	why string
}

// leaderOfTheOpposition is the office whose holder's party holds the shadow posts.
const leaderOfTheOpposition graph.EntityName = "seats/leader-of-the-opposition"

// oppositionParty reads which party was the Official Opposition over the document's date (or the span it
// dates from): the party the graph says the Leader of the Opposition led, or else the one polgraph ships
// (gazetteer/opposition.tsv). It is nil for an undated document, and when two parties were.
func (rd *reading) oppositionParty() *oppositionParty {
	holdings := rd.holdings
	on, dated := rd.when()
	if !dated {
		return nil
	}
	overlaps := func(p graph.Period) bool { return p.Start <= on.End && on.Start <= p.End }
	var found *oppositionParty
	for _, post := range holdings[leaderOfTheOpposition] {
		if post.Type != graph.HoldsOffice || !overlaps(post.Period) {
			continue
		}
		for _, hs := range holdings {
			for _, h := range hs {
				if h.Type != graph.Leads || h.Holder != post.Holder || !overlaps(h.Period) {
					continue
				}
				party, leader := rd.lx.byName[h.Post], rd.lx.byName[h.Holder]
				if party == nil || leader == nil {
					continue
				}
				if found != nil && found.party != party {
					return nil // two parties over the span: neither
				}
				found = &oppositionParty{party: party,
					why: fmt.Sprintf("the party of %s, Leader of the Opposition %s", leader.display, periodText(post.Period))}
			}
		}
	}
	if found != nil {
		return found
	}
	for _, o := range shippedOpposition {
		if !overlaps(o.period) {
			continue
		}
		party := rd.lx.byName[o.party]
		if party == nil || found != nil && found.party != party {
			return nil
		}
		found = &oppositionParty{party: party, why: fmt.Sprintf("the Official Opposition %s", periodText(o.period))}
	}
	return found
}

// shippedOpposition is gazetteer/opposition.tsv: which party was the Official Opposition when.
var shippedOpposition = func() []struct {
	party  graph.EntityName
	period graph.Period
} {
	var out []struct {
		party  graph.EntityName
		period graph.Period
	}
	eachLine("gazetteer/opposition.tsv", func(line string) {
		f := strings.Split(line, "\t")
		p, err := recordPeriod(f[1], f[2:])
		if err != nil {
			panic(fmt.Sprintf("gazetteer/opposition.tsv: %q: %v", line, err)) // embedded: a test reads it
		}
		out = append(out, struct {
			party  graph.EntityName
			period graph.Period
		}{graph.EntityName(f[0]), p})
	})
	return out
}()

// holderEntry is the entry of a holding's holder: the graph's entity of that name, or, for polgraph's
// record (whose holders are display names), the person of that name the document or the graph knows, or a
// new proposed one.
func (rd *reading) holderEntry(holder graph.EntityName) *entry {
	if e := rd.lx.byName[holder]; e != nil {
		return e
	}
	name, ok := strings.CutPrefix(string(holder), shippedHolder)
	if !ok {
		return nil
	}
	return rd.link(name, graph.KindActor)
}

// holderAmong is the one of people a holding's holder is: the graph's entity of that name, or for
// polgraph's record, the person of that display name; nil when none of them is.
func (rd *reading) holderAmong(holder graph.EntityName, people []*entry) *entry {
	for _, p := range people {
		if isHolder(holder, p) {
			return p
		}
	}
	return nil
}

// isHolder reports whether e is a holding's holder: the graph's entity of that name, or for polgraph's
// record, the person of that display name.
func isHolder(holder graph.EntityName, e *entry) bool {
	name, shipped := strings.CutPrefix(string(holder), shippedHolder)
	return e.name == holder || shipped && normalise(e.display) == normalise(name)
}

// shippedHolder prefixes the holder of a holding from polgraph's record: a display name, not an entity.
const shippedHolder = "record:"

// holdingsOf is what is known of a post: the graph's holdings of it, or where it holds none, polgraph's
// record.
func (rd *reading) holdingsOf(post graph.EntityName) []Holding {
	if hs := rd.holdings[post]; len(hs) > 0 {
		return hs
	}
	return shippedHolders[post]
}

// shippedHolders is gazetteer/holders.tsv: who held the main UK offices and led the main parties, when.
var shippedHolders = func() map[graph.EntityName][]Holding {
	out := map[graph.EntityName][]Holding{}
	eachLine("gazetteer/holders.tsv", func(line string) {
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			panic(fmt.Sprintf("gazetteer/holders.tsv: %q: want post, holder, from and to", line))
		}
		p, err := recordPeriod(f[2], f[3:])
		if err != nil {
			panic(fmt.Sprintf("gazetteer/holders.tsv: %q: %v", line, err)) // embedded: a test reads it
		}
		typ := graph.HoldsOffice
		if strings.HasPrefix(f[0], "parties/") {
			typ = graph.Leads
		}
		post := graph.EntityName(f[0])
		out[post] = append(out[post], Holding{Holder: graph.EntityName(shippedHolder + f[1]), Post: post, Type: typ, Period: p})
	})
	return out
}()

// recordPeriod reads a record's from and (perhaps empty, or left out) to: to the day before the next began.
func recordPeriod(from string, to []string) (graph.Period, error) {
	start, err := graph.ParseFuzzyDate(from)
	if err != nil {
		return graph.Period{}, err
	}
	p := graph.Period{Start: start.FirstDay(), End: math.MaxInt32}
	if len(to) > 0 && strings.TrimSpace(to[0]) != "" {
		end, err := graph.ParseFuzzyDate(strings.TrimSpace(to[0]))
		if err != nil {
			return graph.Period{}, err
		}
		p.End = end.LastDay() - 1
	}
	return p, nil
}

// everLed reports whether the graph, or else polgraph's record, says the person ever led the party.
func (rd *reading) everLed(person, party graph.EntityName) bool {
	p := rd.lx.byName[person]
	return p != nil && slices.ContainsFunc(rd.holdingsOf(party), func(h Holding) bool { return h.Type == graph.Leads && isHolder(h.Holder, p) })
}

// heldByNamed is the one person of people the graph, or else polgraph's record, says ever held the post:
// known is false when neither knows anyone who held it; the person is nil when the document names no one,
// or several, who did.
func (rd *reading) heldByNamed(post *entry, typ graph.RelationType, people []*entry) (who *entry, known bool) {
	hs := rd.holdingsOf(post.name)
	known = slices.ContainsFunc(hs, func(h Holding) bool { return h.Type == typ })
	if es, _ := holdersAmong(hs, typ, people); len(es) == 1 {
		who = es[0]
	}
	return who, known
}

// holdersAmong lists, once each, the people who held the post by hs's account (of type typ), each with a
// holding of theirs.
func holdersAmong(hs []Holding, typ graph.RelationType, people []*entry) ([]*entry, []Holding) {
	var es []*entry
	var held []Holding
	for _, h := range hs {
		if h.Type != typ {
			continue
		}
		for _, p := range people {
			if isHolder(h.Holder, p) && !slices.Contains(es, p) {
				es, held = append(es, p), append(held, h)
			}
		}
	}
	return es, held
}

// when is the document's date, or the span it dates from (Input.Within); dated is false for neither.
func (rd *reading) when() (on graph.Period, dated bool) {
	switch {
	case !rd.published.IsZero():
		return graph.PeriodOf(rd.published), true
	case rd.within != graph.Period{}:
		return rd.within, true
	}
	return graph.Period{}, false
}

// candidatesFor lists the people a description may stand for when it is one of several, and says why: the
// ones the document names in the post, or else those the graph (or polgraph's record) says held it over the
// document's date, or, undated, those of the document's people who ever held it. Two or three, or none.
func (rd *reading) candidatesFor(text string, post *entry, typ graph.RelationType, named []*entry, hs []Holding,
	on graph.Period, dated bool, people []*entry) ([]*entry, string) {
	var out []*entry
	why := fmt.Sprintf("named %s of %s in the document", typ, post.display)
	if len(named) == 0 {
		for _, h := range hs {
			if h.Type != typ || dated && !(h.Period.Start <= on.End && on.Start <= h.Period.End) {
				continue
			}
			e := rd.holderAmong(h.Holder, people)
			if e == nil && dated {
				e = rd.lx.byName[h.Holder]
			}
			if e != nil && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
		verb := "held"
		if typ == graph.Leads {
			verb = "led"
		}
		why = fmt.Sprintf("each %s %s", verb, post.display)
		if dated {
			why += " then"
		}
	} else {
		out = named
	}
	if len(out) < 2 || len(out) > 3 {
		return nil, ""
	}
	names := make([]string, len(out))
	for i, e := range out {
		names[i] = e.display
	}
	return out, fmt.Sprintf("%s → one of %s (%s): for review to choose", text, strings.Join(names, " or "), why)
}
