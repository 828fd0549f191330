// Package ingest reads articles and social posts into proposals for the review queue (graph/review):
// it cleans the text, splits sentences, finds mentions of people, parties, seats, offices and
// organisations, links them to the graph's entities (aliases, fuzzy and phonetic matching, surnames within
// a document) and proposes relations in the vocabulary from the sentences' wording, each with its sentence
// as the excerpt, a confidence and a claim status. It reads; it never writes.
package ingest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// Input is one document to read.
type Input struct {
	Path    string // file name or request field, for messages and Document.Path
	Content []byte
	// Format is "text", "html" or "posts"; "" detects it from the content.
	Format string
	// What the caller knows of the document; the text fills what is left empty where it can.
	Title, Outlet, Author, URL string
	Published                  graph.FuzzyDate
	// Within, when the document has no date, is a span it is known to date from (a corpus of 2004–05):
	// descriptions resolve through the graph only to who held the post all through it. Zero: none.
	Within graph.Period
	// Kind is the source kind; "" makes posts SOCIAL_POST and the rest ARTICLE.
	Kind graph.SourceKind
}

// MaxInputBytes bounds one document.
const MaxInputBytes = 4 << 20

// Reader reads documents against the entities the graph holds. Entities it proposes in one document are
// linked to in the next, so a batch of documents proposes each new person once. It is safe for
// concurrent use.
type Reader struct {
	mu       sync.Mutex
	lx       *lexicon
	holdings map[graph.EntityName][]Holding // by post (NewGraphReader)
	Now      func() time.Time
}

// NewReader returns a Reader that links mentions to the given entities (the graph's; deleted ones are
// ignored) and to the gazetteer polgraph ships.
func NewReader(known []graph.Entity) *Reader {
	return &Reader{lx: newLexicon(known), Now: time.Now}
}

// reading is the state of reading one document.
type reading struct {
	lx        *lexicon
	sentences []sentence
	mentions  [][]mention // per sentence
	used      []*entry    // entries the document mentions that are not in the graph, in order
	created   []*entry    // entries this document proposed
	// posts is set for a stream of posts, where names stand side by side as tags, not as "Labour Keir
	// Starmer" would in prose.
	posts bool
	// published is the document's date (zero when unknown): a state described as past ended by then.
	published graph.FuzzyDate
	// within is Input.Within: the span an undated document dates from.
	within graph.Period
	// holdings are the graph's holdings of posts, by post (NewGraphReader).
	holdings map[graph.EntityName][]Holding
	// paragraphs are the text's paragraphs: sentences never cross them.
	paragraphs []review.Span
	// opposition is the party whose leader the graph says was Leader of the Opposition when the document
	// was written (nil when it does not say, or the document has no date): a shadow post is that party's.
	opposition *oppositionParty
}

// Read reads one document. It fails (Invalid) only when the input is not text that can be read.
func (r *Reader) Read(in Input) (review.Reading, error) {
	const op = "ingest.Read"
	if len(in.Content) > MaxInputBytes {
		return review.Reading{}, graph.E(op, graph.Invalid, "%s: %d bytes, more than the %d a document may have", in.Path, len(in.Content), MaxInputBytes)
	}
	c, err := clean(in)
	if err != nil {
		return review.Reading{}, err
	}
	if c.outlet == "" && c.format == FormatHTML {
		c.outlet = outletOf(string(in.Content))
	}
	ss, err := splitSentences(c.text, c.paragraphs)
	if err != nil {
		return review.Reading{}, &graph.Error{Op: op, Kind: graph.Internal, Message: "sentence tokenizer", Err: err}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rd := &reading{lx: r.lx, sentences: ss, posts: c.format == FormatPosts, published: c.published, within: in.Within, paragraphs: c.paragraphs, holdings: r.holdings}
	// Twice: names the first pass proposes are known to the second, which then finds them where they run
	// into other words ("Lutfur Rahman Maium Miah").
	rd.findAll()
	rd.resolve()
	rd.used = nil
	rd.findAll()
	rd.resolve()
	rd.nameProposed()
	rd.describe()
	rd.opposition = rd.oppositionParty()
	rd.refer(c.paragraphs)
	rd.roleDescriptions()
	props := rd.relations()
	// Every end of a proposal is an entity of the reading, or of the graph: a post or a party reached
	// through what the document said elsewhere ("the party", a shadow post's party) is used here too.
	for _, p := range props {
		for _, end := range []graph.EntityName{p.From, p.To} {
			if e := rd.lx.byName[end]; e != nil {
				rd.use(e, e.display)
			}
		}
	}

	doc := review.Document{Hash: review.HashText(c.text), Format: c.format, Path: in.Path, Text: c.text, Ingested: r.Now().UTC()}
	kind := in.Kind
	if kind == "" {
		kind = graph.SourceArticle
		if c.format == FormatPosts {
			kind = graph.SourceSocialPost
		}
	}
	doc.Source = graph.Source{Name: review.SourceNameFor(doc.Hash), Title: c.title, Kind: kind, Outlet: c.outlet,
		Author: c.author, Published: c.published, URL: c.url}
	out := review.Reading{Document: doc}
	// Outlets, and the bodies a text mostly names as a place ("marching past Parliament"), are entities to
	// propose only when the document says they did something: an end of one of its proposals.
	ends := map[graph.EntityName]bool{}
	for _, p := range props {
		ends[p.From], ends[p.To] = true, true
	}
	for _, e := range rd.used {
		if placeOrOutlet[e.name] && !ends[e.name] {
			continue
		}
		out.Entities = append(out.Entities, review.Entity{Name: e.name, Kind: e.kind, DisplayName: e.display,
			Aliases: proposedAliases(e), Document: doc.Hash, State: review.Pending})
	}
	for i := range props {
		props[i].Document = doc.Hash
		props[i].State = review.Pending
		props[i].ID = review.ProposalID(props[i].Signature())
	}
	out.Proposals = props
	for _, ms := range rd.mentions {
		for _, m := range ms {
			if m.post != nil {
				// "the prime minister" names the office as well as its holder.
				out.Mentions = append(out.Mentions, review.Mention{Text: m.text, Span: m.span, Entity: m.post.name, Proposed: m.post.proposed || m.post.shipped})
			}
			out.Mentions = append(out.Mentions, review.Mention{Text: m.text, Span: m.span, Entity: m.ent.name, Proposed: m.ent.proposed || m.ent.shipped})
		}
	}
	return out, nil
}

func proposedAliases(e *entry) []string {
	seen := map[string]bool{normalise(e.display): true}
	var out []string
	for _, a := range append(slices.Clone(e.aliases), e.spellings...) {
		if n := normalise(a); !seen[n] && n != "" {
			seen[n] = true
			out = append(out, a)
		}
	}
	return out
}

// findAll finds every sentence's mentions.
func (rd *reading) findAll() {
	rd.mentions = make([][]mention, len(rd.sentences))
	for i := range rd.sentences {
		rd.mentions[i] = rd.findMentions(&rd.sentences[i])
	}
}

// resolve links the mentions that no known name matched: full names to the lexicon (exactly, then by
// spelling and sound) or to new proposed entities; then single names (a surname, a given name, "Mr X")
// to the person of the document they name.
func (rd *reading) resolve() {
	var persons []*entry // the document's people named in full, in order
	addPerson := func(e *entry) {
		if e.kind == graph.KindActor && !slices.Contains(persons, e) {
			persons = append(persons, e)
		}
	}
	for si := range rd.mentions {
		for mi := range rd.mentions[si] {
			m := &rd.mentions[si][mi]
			if m.ent != nil {
				addPerson(m.ent)
				continue
			}
			if m.kind == graph.KindActor && m.first == m.last && !m.kin {
				continue // a single name: below
			}
			if m.kin && mi > 0 && rd.mentions[si][mi-1].kind == graph.KindActor {
				// "Michael Howard's wife, Sandra": Sandra Howard, where the graph knows her so.
				words := strings.Fields(rd.mentions[si][mi-1].text)
				if es := rd.lx.byForm[normalise(m.text+" "+words[len(words)-1])]; len(es) == 1 && es[0].kind == graph.KindActor {
					m.ent = es[0]
					addPerson(m.ent)
					continue
				}
			}
			m.ent = rd.link(m.text, m.kind)
			for _, w := range m.within {
				if w.ent == nil {
					w.ent = rd.link(w.text, w.kind)
				}
				if !slices.Contains(m.ent.within, w.ent) {
					m.ent.within = append(m.ent.within, w.ent)
				}
			}
			addPerson(m.ent)
		}
	}
	rd.acronyms()
	for si := range rd.mentions {
		kept := rd.mentions[si][:0]
		for _, m := range rd.mentions[si] {
			if m.ent == nil {
				m.ent = rd.referent(m, persons)
			}
			if m.ent == nil {
				continue
			}
			rd.use(m.ent, m.text)
			kept = append(kept, m)
		}
		rd.mentions[si] = kept
	}
}

// link finds or proposes the entity a full name means.
func (rd *reading) link(text string, kind graph.Kind) *entry {
	form := normalise(text)
	for _, e := range rd.lx.byForm[form] {
		if e.kind == kind {
			return e
		}
	}
	if kind == graph.KindActor || kind == graph.KindParty {
		if e := rd.lx.fuzzy(form, kind); e != nil {
			return e
		}
	}
	return rd.propose(text, kind)
}

// propose makes a new entry for a name nobody knows, named after it (with a number when the name is
// taken).
func (rd *reading) propose(text string, kind graph.Kind) *entry {
	display := strings.TrimSpace(text)
	slug := slugOf(display)
	if slug == "" {
		slug = "unnamed"
	}
	// Slugs are unique across collections: "Plaid Cymru" the party and a body of that name differ.
	name := graph.EntityName(graph.CollectionOf(kind) + "/" + slug)
	for n := 2; rd.lx.slugs[graph.Slug(name)]; n++ {
		name = graph.EntityName(fmt.Sprintf("%s/%s-%d", graph.CollectionOf(kind), graph.TrimSlug(slug, 95), n))
	}
	e := &entry{name: name, kind: kind, display: display, proposed: true, uses: map[string]int{}}
	rd.lx.add(e)
	rd.created = append(rd.created, e)
	return e
}

// nameProposed names each entity this document proposed after the spelling of its full name that the
// document uses most ("Rushanara Ali", not the "Rushnara Ali" it happened to write first).
func (rd *reading) nameProposed() {
	for _, e := range rd.created {
		best, n := e.display, e.uses[e.display]
		for sp, c := range e.uses {
			if c > n && len(strings.Fields(sp)) >= len(strings.Fields(best)) || len(strings.Fields(sp)) > len(strings.Fields(best)) && c*2 >= n {
				best, n = sp, c
			}
		}
		if best == e.display {
			continue
		}
		slug := slugOf(best)
		name := graph.EntityName(graph.CollectionOf(e.kind) + "/" + slug)
		if slug == "" || rd.lx.slugs[slug] {
			continue
		}
		delete(rd.lx.byName, e.name)
		delete(rd.lx.slugs, graph.Slug(e.name))
		rd.lx.slugs[slug] = true
		e.spellings = append(e.spellings, e.display)
		e.spellings = slices.DeleteFunc(e.spellings, func(s string) bool { return s == best })
		e.name, e.display = name, best
		rd.lx.byName[name] = e
	}
}

// referent finds the person a single name means: the document's person of that surname or given name
// (spelled alike), else the only person of that surname the graph knows when a title says a person is
// meant, else a new person when a title says so.
func (rd *reading) referent(m mention, persons []*entry) *entry {
	word := normalise(m.text)
	ws := strings.Fields(word)
	var found *entry
	for _, p := range persons {
		for _, n := range append([]string{p.display}, p.aliases...) {
			words := strings.Fields(normalise(n))
			if len(words) <= len(ws) {
				continue
			}
			// the family name (the last words) or the given name (the first)
			if similarName(word, strings.Join(words[len(words)-len(ws):], " ")) || similarName(word, strings.Join(words[:len(ws)], " ")) {
				if found != nil && found != p {
					return nil // two people of the document answer to it
				}
				found = p
				break
			}
		}
	}
	if found != nil {
		return found
	}
	// A peer is known by the title: "Baroness Kennedy" is not the Charles Kennedy of another document.
	if peerTitles[strings.ToLower(m.title)] {
		return rd.link(m.title+" "+m.text, graph.KindActor)
	}
	if es := rd.lx.surname[word]; len(es) == 1 && (m.title != "" || !es[0].proposed) {
		return es[0]
	}
	if m.title != "" && len(word) >= 3 {
		return rd.link(m.text, graph.KindActor)
	}
	return nil
}

// peerTitles name a person by title and one name.
var peerTitles = map[string]bool{"lord": true, "lady": true, "baroness": true, "baron": true, "earl": true, "viscount": true, "countess": true}

// use notes that the document mentions e under the given spelling.
func (rd *reading) use(e *entry, spelling string) {
	if !e.shipped && !e.proposed {
		return
	}
	if e.uses != nil && slices.Contains(rd.created, e) {
		e.uses[spelling]++
	}
	if e.proposed && normalise(spelling) != normalise(e.display) && !slices.Contains(e.spellings, spelling) {
		e.spellings = append(e.spellings, spelling)
		rd.lx.addForm(spelling, e)
	}
	if !slices.Contains(rd.used, e) {
		rd.used = append(rd.used, e)
	}
}

// acronymAfter is an acronym in brackets after a body's name: "the Muslim Association of Britain (MAB)".
var acronymAfter = regexp.MustCompile(`^\s*\((\p{Lu}[\p{Lu}\p{Ll}&]{1,9})\)`)

// acronyms teaches the lexicon the acronym a document gives a body in brackets after its name, when the
// acronym's letters are the name's initials and no other entity goes by it: later mentions then link.
func (rd *reading) acronyms() {
	for si := range rd.mentions {
		s := &rd.sentences[si]
		for _, m := range rd.mentions[si] {
			if m.ent == nil || m.ent.kind != graph.KindOrganisation && m.ent.kind != graph.KindParty {
				continue
			}
			loc := acronymAfter.FindStringSubmatchIndex(s.text[m.span.End-s.span.Start:])
			if loc == nil {
				continue
			}
			acr := s.text[m.span.End-s.span.Start+loc[2] : m.span.End-s.span.Start+loc[3]]
			if !initialsOf(m.text, acr) || len(rd.lx.byForm[normalise(acr)]) > 0 {
				continue
			}
			rd.lx.addForm(acr, m.ent)
			rd.use(m.ent, acr)
		}
	}
}

// initialsOf reports whether acr is the initials of name's capitalised words, in order ("MAB": Muslim
// Association of Britain; "PLP": Parliamentary Labour Party), a letter perhaps left out.
func initialsOf(name, acr string) bool {
	var initials []rune
	for _, w := range strings.Fields(name) {
		if r := []rune(w)[0]; unicode.IsUpper(r) {
			initials = append(initials, r)
		}
	}
	a := []rune(strings.ToUpper(acr))
	// Every letter of the acronym, in order, among the initials; at most one initial unused.
	i := 0
	for _, r := range initials {
		if i < len(a) && r == a[i] {
			i++
		}
	}
	return i == len(a) && len(initials)-len(a) <= 1 && len(a) >= 2
}
