package ingest

import (
	"bufio"
	"embed"
	"strings"

	"github.com/antzucaro/matchr"

	"github.com/polgraph/polgraph/graph"
)

// The gazetteer polgraph ships: UK parties, organisations and offices with the names the press uses for
// them, UK parliamentary constituencies (Open Civic Data), and given names.
//
//go:embed gazetteer/*.tsv gazetteer/*.txt
var gazetteerFS embed.FS

// entry is an entity a mention may link to: one the graph holds, or one of the shipped gazetteer that the
// graph does not hold yet (shipped), which a mention proposes.
type entry struct {
	name    graph.EntityName
	kind    graph.Kind
	display string
	aliases []string
	shipped bool
	// constituency entries are only linked where the wording says a seat is meant ("MP for X", "the X
	// seat"): many constituencies share their names with towns.
	constituency bool
	// proposed entries were made by the reader for names nobody knew; spellings are the forms documents
	// used for them, kept as aliases.
	proposed  bool
	spellings []string
	uses      map[string]int // how often each spelling was used, in the document that proposed it
	// within are the bodies a local group's name said it is part of (groupMentions).
	within []*entry
}

// lexicon indexes entries by every form of their names, and persons by the sound of their names.
type lexicon struct {
	byForm  map[string][]*entry
	maxLen  int // the most words of any form
	byName  map[graph.EntityName]*entry
	slugs   map[string]bool     // every entry's slug: slugs are unique across collections
	sounds  map[string][]*entry // a person's or party's words' Double Metaphone keys → entries
	given   map[string]bool
	surname map[string][]*entry // a person's last word → persons
}

func newLexicon(known []graph.Entity) *lexicon {
	lx := &lexicon{byForm: map[string][]*entry{}, byName: map[graph.EntityName]*entry{}, slugs: map[string]bool{},
		sounds: map[string][]*entry{}, given: map[string]bool{}, surname: map[string][]*entry{}}
	for _, e := range known {
		if !e.Deleted.IsZero() {
			continue
		}
		lx.add(&entry{name: e.Name, kind: e.Kind, display: e.DisplayName, aliases: e.Aliases})
	}
	lx.readShipped("gazetteer/parties.tsv", graph.KindParty)
	lx.readShipped("gazetteer/organisations.tsv", graph.KindOrganisation)
	lx.readShipped("gazetteer/offices.tsv", graph.KindSeat)
	eachLine("gazetteer/constituencies.txt", func(line string) {
		name := graph.EntityName("seats/" + slugOf(line))
		if lx.slugs[graph.Slug(name)] {
			return // the graph (or a list before) holds the name
		}
		if es := lx.byForm[normalise(line)]; len(es) > 0 {
			return // the graph holds it under another name
		}
		lx.add(&entry{name: name, kind: graph.KindSeat, display: line, shipped: true, constituency: true})
	})
	eachLine("gazetteer/given-names.txt", func(line string) {
		for _, w := range strings.Fields(line) {
			lx.given[strings.ToLower(w)] = true
		}
	})
	// The English given names of the nicknames list (graph.GivenNames), less those that are also common
	// words a capitalised run may start with ("Will", "Grant", "Hope").
	for _, w := range graph.GivenNames() {
		if len(w) > 2 && !commonGiven[w] && !notNames[w] && !nameParts[w] {
			lx.given[w] = true
		}
	}
	// The graph's people teach their given names too.
	for _, e := range lx.byName {
		if e.kind == graph.KindActor {
			if f := strings.Fields(e.display); len(f) >= 2 {
				lx.given[strings.ToLower(f[0])] = true
			}
		}
	}
	return lx
}

// placeOrOutlet are the shipped outlets, and the bodies texts mostly name as places: mentioned, they are
// entities of the document only as an end of a relation it proposes.
var placeOrOutlet = map[graph.EntityName]bool{
	"organisations/bbc": true, "organisations/itn": true, "organisations/sky-news": true, "organisations/itv": true,
	"organisations/channel-4": true, "organisations/reuters": true, "organisations/press-association": true,
	"organisations/uk-parliament": true, "organisations/house-of-commons": true, "organisations/house-of-lords": true,
}

// commonGiven are given names of the nicknames list that are also common words.
var commonGiven = map[string]bool{"will": true, "grant": true, "hope": true, "may": true, "mark": true, "bill": true,
	"frank": true, "rich": true, "art": true, "gene": true, "sly": true, "rose": true, "pat": true, "sue": true,
	"don": true, "ray": true, "rob": true, "jack": true, "pip": true, "dot": true, "penny": true, "sandy": true,
	"rusty": true, "lou": true, "jim": false, "faith": true, "joy": true, "grace": true, "patience": true,
	"prudence": true, "honor": true, "constance": true, "charity": true, "mercy": true, "earl": true,
	"duke": true, "king": true, "prince": true, "bishop": true, "dean": true, "major": true, "general": true,
	"chase": true, "chance": true, "cliff": true, "dale": true, "glen": true, "heath": true, "lane": true,
	"miles": true, "ward": true, "wood": true, "west": true, "young": true, "winter": true, "summer": true,
	"april": true, "june": true, "august": true, "christian": true, "sunday": true, "amber": false, "ivy": false,
	"wally": true, "bud": true, "buddy": true, "sonny": true, "nat": true, "val": true, "vic": true, "walt": true,
	"pen": true, "kit": true, "tim": false, "ben": false, "sam": false, "max": true, "bert": false, "lon": true,
	"ron": false, "hal": true, "dell": true, "del": true, "cal": true, "ken": false, "les": false, "liz": false}

func eachLine(file string, f func(string)) {
	b, err := gazetteerFS.ReadFile(file)
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			f(line)
		}
	}
}

// readShipped adds a shipped list: a graph entity of the same name, or holding one of the names, gains the
// list's other names; the rest are shipped entries.
func (lx *lexicon) readShipped(file string, kind graph.Kind) {
	eachLine(file, func(line string) {
		cols := strings.Split(line, "\t")
		if len(cols) < 2 {
			return
		}
		name := graph.EntityName(cols[0])
		names := []string{cols[1]}
		if len(cols) > 2 {
			names = append(names, strings.Split(cols[2], "|")...)
		}
		target := lx.byName[name]
		if target == nil {
			for _, n := range names {
				for _, e := range lx.byForm[normalise(n)] {
					if e.kind == kind && !e.shipped {
						target = e
					}
				}
			}
		}
		if target != nil {
			for _, n := range names {
				lx.addForm(n, target)
			}
			return
		}
		if lx.slugs[graph.Slug(name)] {
			return // the slug names another entity of the graph
		}
		lx.add(&entry{name: name, kind: kind, display: names[0], aliases: names[1:], shipped: true})
	})
}

func (lx *lexicon) add(e *entry) {
	lx.byName[e.name] = e
	lx.slugs[graph.Slug(e.name)] = true
	lx.addForm(e.display, e)
	for _, a := range e.aliases {
		lx.addForm(a, e)
	}
	// "the mayoralty of Tower Hamlets" is the office of Mayor of Tower Hamlets.
	if e.kind == graph.KindSeat && strings.HasPrefix(e.display, "Mayor of ") {
		lx.addForm("mayoralty of "+strings.TrimPrefix(e.display, "Mayor of "), e)
	}
}

func (lx *lexicon) addForm(form string, e *entry) {
	n := normalise(form)
	if n == "" {
		return
	}
	for _, x := range lx.byForm[n] {
		if x == e {
			return
		}
	}
	lx.byForm[n] = append(lx.byForm[n], e)
	if l := len(strings.Fields(n)); l > lx.maxLen {
		lx.maxLen = l
	}
	if e.kind == graph.KindActor || e.kind == graph.KindParty {
		words := strings.Fields(n)
		for _, w := range words {
			if len(w) >= 3 {
				k := soundKey(w)
				lx.sounds[k] = appendOnce(lx.sounds[k], e)
			}
		}
		if e.kind == graph.KindActor && len(words) >= 2 {
			last := words[len(words)-1]
			lx.surname[last] = appendOnce(lx.surname[last], e)
		}
	}
}

func appendOnce(es []*entry, e *entry) []*entry {
	for _, x := range es {
		if x == e {
			return es
		}
	}
	return append(es, e)
}

// soundKey is the primary Double Metaphone key of a word.
func soundKey(w string) string {
	p, _ := matchr.DoubleMetaphone(strings.ToUpper(w))
	return p
}

// similarWord says whether two words of names are the same name spelled differently: a transliteration
// ("Rushnara", "Rusnara" for "Rushanara"; "Mashroor" for "Masroor"; "Labor" for "Labour"). Both must be
// long enough to judge, sound alike or differ by little, and begin alike.
func similarWord(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) < 4 || len(b) < 4 || a[0] != b[0] {
		return false
	}
	jw := matchr.JaroWinkler(a, b, false)
	if jw >= 0.93 {
		return true
	}
	pa, sa := matchr.DoubleMetaphone(strings.ToUpper(a))
	pb, sb := matchr.DoubleMetaphone(strings.ToUpper(b))
	samesound := pa == pb || pa == sb || sa == pb || sa != "" && sa == sb || skeleton(a) == skeleton(b)
	return samesound && jw >= 0.85 || matchr.Levenshtein(a, b) == 1 && len(a) >= 5
}

// skeleton is a word's consonants with the spellings that transliterations vary folded together
// ("Rusnara", "Rushanara" → rsnr; "Mashroor", "Masroor" → msrr).
func skeleton(w string) string {
	w = strings.NewReplacer("sh", "s", "ph", "f", "kh", "k", "gh", "g", "th", "t", "dh", "d", "bh", "b", "ck", "k", "q", "k", "z", "s").Replace(w)
	var b strings.Builder
	var last rune
	for _, r := range w {
		if strings.ContainsRune("aeiouyhw", r) || r == last {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	return b.String()
}

// similarName says whether two normalised names of several words are the same name: as many words, each
// similar, and the last (the family name) or the first the same or alike. A given name may also be a form
// of the other's ("Ken Clarke", "Kenneth Clarke": graph.SameGivenName) when the family names are the same.
func similarName(a, b string) bool {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) != len(wb) || len(wa) == 0 {
		return false
	}
	exact := 0
	for i := range wa {
		if i == 0 && len(wa) > 1 && wa[len(wa)-1] == wb[len(wb)-1] && graph.SameGivenName(wa[0], wb[0]) {
			continue
		}
		if !similarWord(wa[i], wb[i]) {
			return false
		}
		if wa[i] == wb[i] {
			exact++
		}
	}
	return exact >= 1 || len(wa) == 1
}

// fuzzy finds the entry of the given kind whose name is like form (see similarName), when exactly one is.
func (lx *lexicon) fuzzy(form string, kind graph.Kind) *entry {
	words := strings.Fields(form)
	if len(words) == 0 {
		return nil
	}
	seen := map[*entry]bool{}
	var found *entry
	for _, w := range words {
		if len(w) < 3 {
			continue
		}
		for _, e := range lx.sounds[soundKey(w)] {
			if seen[e] || e.kind != kind {
				continue
			}
			seen[e] = true
			for _, n := range append([]string{e.display}, e.aliases...) {
				if similarName(form, normalise(n)) {
					if found != nil && found != e {
						return nil // ambiguous
					}
					found = e
				}
			}
		}
	}
	return found
}

// slugOf makes a slug of a display name.
func slugOf(s string) string { return graph.TrimSlug(graph.Slugify(s), 80) }

// branchOf is the shipped party a body's name says it is a branch of: "Poplar and Limehouse Labour
// Party", "Tower Hamlets Labour Group", "Parliamentary Labour Party", "Scottish Labour". The party's name
// ends the body's, or comes before its last word; a shipped party is a branch only of a nation's
// ("Scottish Labour"), not of a name that happens to hold another ("Social Democratic and Labour Party").
func (lx *lexicon) branchOf(e *entry) *entry {
	words := strings.Fields(e.display)
	if len(words) < 2 {
		return nil
	}
	if e.shipped && e.kind == graph.KindParty && !nations[strings.ToLower(words[0])] {
		return nil
	}
	for _, cut := range []int{len(words), len(words) - 1} {
		// The party's name ends the body's, or comes before a branch's head word ("… Labour Group").
		if cut < len(words) && !branchHeads[strings.ToLower(words[cut])] {
			continue
		}
		for from := 1; from < cut; from++ {
			form := strings.Join(words[from:cut], " ")
			if commonWords[strings.ToLower(form)] {
				continue // "Traveller Law Reform Coalition" is no branch of Reform UK
			}
			for _, p := range lx.byForm[normalise(form)] {
				if p.kind == graph.KindParty && p.shipped && p != e {
					return p
				}
			}
		}
	}
	return nil
}

// branchHeads end a party branch's name after the party's: "Tower Hamlets Labour Group".
var branchHeads = map[string]bool{"party": true, "group": true, "branch": true, "association": true, "club": true,
	"forum": true, "federation": true, "council": true, "councillors": true}

// nations make a party's name a nation's part of it: "Scottish Labour", "Welsh Conservatives".
var nations = map[string]bool{"scottish": true, "welsh": true, "english": true, "london": true}
