package ingest

import (
	"regexp"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// mention is a name in a sentence, resolved to a document entity.
type mention struct {
	first, last int // token indexes, inclusive
	span        review.Span
	text        string
	kind        graph.Kind
	title       string // "Mr", "Cllr", … before a person's name
	possessive  bool
	ent         *entry // nil until resolved
	// note says how a description was resolved through the graph: "the Tory leader → Michael Howard,
	// LEADS Conservatives 2003–2005".
	note string
	// pronoun marks a "he" or "she" standing for a person named before (refer).
	pronoun bool
	// partOf marks a committee named after the body it is part of (committeeMentions).
	partOf bool
	// kin marks a given name alone after a family word ("his wife Maggie"): a person of their own.
	kin bool
	// within are the bodies a local party group's name says it is part of: "the Labour group on Newham
	// Council" is part of Labour and of the council (groupMentions).
	within []mention
	// post is the office or party a description named ("the prime minister"), resolved to its holder.
	post *entry
	// pastPost marks a post described as past ("the former Labour leader").
	pastPost bool
	// pair is the other person of "the two men", which stands for ent and pair (refer).
	pair *entry
	// candidates are the people a description of a post may stand for, when it is one of several (the
	// graph says two held it on the day): each is proposed, for review to choose (describe).
	candidates []*entry
}

// titles mark the name after them as a person's.
var titles = map[string]bool{"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true, "sir": true,
	"lord": true, "lady": true, "baroness": true, "dame": true, "cllr": true, "councillor": true, "prof": true,
	"professor": true, "rev": true, "reverend": true, "lt": true, "col": true, "gen": true, "capt": true,
	"captain": true, "major": true, "rt": true, "hon": true, "mp": false, "president": true, "judge": true,
	"justice": true, "bishop": true, "sheikh": true, "imam": true, "chairman": true, "cardinal": true, "archbishop": true}

func isTitle(w string) bool { return titles[strings.ToLower(strings.TrimSuffix(w, "."))] }

// orgHeads end the names of organisations, and say which kind.
var orgHeads = map[string]graph.Kind{"party": graph.KindParty, "council": graph.KindOrganisation,
	"committee": graph.KindOrganisation, "commission": graph.KindOrganisation, "association": graph.KindOrganisation,
	"office": graph.KindOrganisation, "department": graph.KindOrganisation, "ministry": graph.KindOrganisation,
	"group": graph.KindOrganisation, "union": graph.KindOrganisation, "court": graph.KindOrganisation,
	"forum": graph.KindOrganisation, "trust": graph.KindOrganisation, "foundation": graph.KindOrganisation,
	"institute": graph.KindOrganisation, "society": graph.KindOrganisation, "league": graph.KindOrganisation,
	"authority": graph.KindOrganisation, "agency": graph.KindOrganisation, "federation": graph.KindOrganisation,
	"assembly": graph.KindOrganisation, "coalition": graph.KindOrganisation, "movement": graph.KindOrganisation,
	"campaign": graph.KindOrganisation, "congress": graph.KindOrganisation, "board": graph.KindOrganisation,
	"executive": graph.KindOrganisation, "inquiry": graph.KindOrganisation, "tribunal": graph.KindOrganisation,
	"police": graph.KindOrganisation, "bank": graph.KindOrganisation, "university": graph.KindOrganisation,
	"company": graph.KindOrganisation, "corporation": graph.KindOrganisation, "network": graph.KindOrganisation,
	"times": graph.KindOrganisation, "telegraph": graph.KindOrganisation, "herald": graph.KindOrganisation,
	"mirror": graph.KindOrganisation, "observer": graph.KindOrganisation, "gazette": graph.KindOrganisation,
	"limited": graph.KindOrganisation, "ltd": graph.KindOrganisation, "plc": graph.KindOrganisation,
	"international": graph.KindOrganisation, "partnership": graph.KindOrganisation, "alliance": graph.KindOrganisation,
	"centre": graph.KindOrganisation, "college": graph.KindOrganisation, "church": graph.KindOrganisation,
	"services": graph.KindOrganisation, "fuels": graph.KindOrganisation, "watch": graph.KindOrganisation,
	"radio": graph.KindOrganisation}

// officeHeads end an office's name inside a run of capitalised words: "Welfare Minister Frank Field".
var officeHeads = map[string]bool{"minister": true, "secretary": true, "chancellor": true, "whip": true, "mayor": true}

// personCues are words before a name that make it a person's: "Labour MP Oona King", "wife Sandra".
var personCues = regexp.MustCompile(`\b(?:mp|mep|msp|am|leader|chairman|chairwoman|chair|spokesman|spokeswoman|spokesperson|candidate|secretary|minister|president|deputy|member|councillor|activist|colleague|wife|husband|son|daughter|brother|sister|professor|former|rival|opponent|veteran|campaigner|chancellor|mayor|adviser|aide|director|chief|head|founder|boss|deputy leader|ex-husband|ex-wife|widow|lawyer|solicitor|barrister|dj|presenter|businessman|businesswoman|philanthropist|magnate|tycoon|author|novelist|journalist|economist|academic|historian|broadcaster|columnist|commentator|analyst|pollster|actor|actress|singer|comedian|detainee|prisoner|briton|diplomat|ambassador|envoy|bishop|archbishop|cardinal|judge|strategist|co-ordinator|coordinator|organiser|\d+-year-old(?:\s+[a-z]+)?|'s|’s|(?:father|mother|son|daughter|brother|sister|wife|husband|widow|nephew|niece|cousin) of)\s*$`)

// personAfter are words after a name that make it a person's: "X said", "X, 54,".
var personAfter = regexp.MustCompile(`^(?:\s+(?:said|says|told|added|argued|insisted|warned|claimed|denied|admitted|wrote|replied|explained)\b|,\s+\d{2},|,\s+who\b|,\s+(?:a|an|the)\s+(?:[a-z-]+\s+){0,3}(?:candidate|mp|member|councillor|activist|campaigner|lawyer|spokesman|spokeswoman|director|leader|chairman|chairwoman|founder|adviser|minister|secretary|businessman|businesswoman|donor)\b|,\s+(?:director|leader|chairman|chairwoman|head|president|founder|chief executive|general secretary|spokesman|spokeswoman|secretary|treasurer)\s+(?:of|for|at)\b|,\s+(?:the\s+)?(?:father|mother|son|daughter|wife|husband|brother|sister|widow|widower)\b)`)

// notNames are capitalised words that start no name: sentence openers, days, months, and words that
// headline style capitalises.
var notNames = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the a an and but or if in on at of for to from by with as after before
		however although though while when where what who why how he she it they we i you his her its their our
		this that these those there here then now also yet so not no yes mr mrs one two three four five six
		monday tuesday wednesday thursday friday saturday sunday january february march april july
		august september october november december today yesterday tomorrow last next new former ex
		speaking asked meanwhile but despite during under over about since until amid among between within
		without into onto upon all some many most several other others both each every any such
		british english scottish welsh irish european american muslim muslims bangladeshi christian jewish
		government minister ministers mps mp party parties leader leaders tory labour election elections
		chancellor secretary prime sources source officials spokesman spokeswoman bbc news week month year
		north south east west northern southern eastern western central greater city town county
		mayor councillor councillors cllr candidate candidates president chairman lord lords commons house
		palestine palestinian israel israeli gaza iraq iraqi britain uk us usa eu un nhs
		earlier later instead separately elsewhere recently finally first only even indeed currently
		previously already still perhaps certainly clearly critics supporters shadow
		should would could will can must might shall did does do has have had is was are were`) {
		notNames[w] = true
	}
}

// childList ends the words before a child named in a list of them: "their two children Emily, 16, and ".
var childList = regexp.MustCompile(`\b(?:his|her|their)\s+(?:(?:two|three|four|five|six|\d+|young|grown-up|adult)\s+)?(?:children|sons|daughters|kids|grandchildren)\s+(?:\p{Lu}\p{L}+(?:,\s*\d+)?(?:,\s*|\s+and\s+|,\s+and\s+))*$`)

// groupBefore and fromBefore end the words before an organisation named without a head word: "from the
// controversial group Fathers 4 Justice", "Jim Parton, from Families Need Fathers, said".
var (
	groupBefore = regexp.MustCompile(`\b(?:from|of|by|at)\s+(?:the\s+)?(?:[a-z-]+\s+){0,2}(?:group|organisation|organization|charity|pressure group|campaign group|think-tank|think tank|firm|company|consultancy|union)\s+$`)
	fromBefore  = regexp.MustCompile(`\p{L},\s+from\s+$`)
	// groupAfterName follows a body named without a head word, the head word in lower case after it: "the
	// Muslim Census group".
	groupAfterName = regexp.MustCompile(`^\s+(?:group|organisation|charity|campaign group|pressure group|think-tank|think tank|pollster|polling company)\b`)
	// pollBefore ends the words before a pollster: "research from Deltapoll", "a poll by YouGov".
	pollBefore = regexp.MustCompile(`\b(?:research|poll|polling|survey|study|figures) (?:from|by|for|conducted by|carried out by) $`)
)

// occupations and demonyms stand before a person's name without being part of it.
var (
	occupations = map[string]bool{"lawyer": true, "solicitor": true, "barrister": true, "dj": true, "presenter": true,
		"businessman": true, "businesswoman": true, "philanthropist": true, "magnate": true, "tycoon": true, "author": true,
		"novelist": true, "journalist": true, "economist": true, "academic": true, "historian": true, "broadcaster": true,
		"columnist": true, "commentator": true, "analyst": true, "pollster": true, "campaigner": true, "activist": true,
		"detainee": true, "diplomat": true, "ambassador": true, "judge": true, "strategist": true, "millionaire": true}
	demonyms = map[string]bool{"australian": true, "american": true, "french": true, "german": true, "italian": true,
		"spanish": true, "russian": true, "chinese": true, "indian": true, "pakistani": true, "iraqi": true, "iranian": true,
		"afghan": true, "canadian": true, "zimbabwean": true, "nigerian": true, "kenyan": true, "israeli": true,
		"palestinian": true, "syrian": true, "egyptian": true, "saudi": true, "turkish": true, "polish": true, "dutch": true,
		"belgian": true, "swedish": true, "danish": true, "norwegian": true, "japanese": true, "korean": true, "jordanian": true,
		"libyan": true, "lebanese": true, "bangladeshi": true, "sri lankan": true, "ugandan": true, "ghanaian": true}
)

// electionWords make a constituency's name in the sentence the seat rather than the town.
var electionWords = regexp.MustCompile(`\b(?:seats?|constituenc(?:y|ies)|constituents|majority|majorities|elections?|mps?|standing|stand|candidates?|votes?|by-elections?|held|won|marginal|swing|polls?)\b`)

// nationality adjectives may stand before an office's name without being part of it.
var nationality = map[string]bool{"british": true, "uk": true, "english": true, "former": true, "then": true, "new": true}

// nameParts open place and body names ("East Kilbride", "Greater London Authority") though they are
// in notNames.
var nameParts = map[string]bool{"north": true, "south": true, "east": true, "west": true, "northern": true,
	"southern": true, "eastern": true, "western": true, "central": true, "greater": true, "new": true,
	"city": true, "mid": true, "british": true, "scottish": true, "welsh": true, "irish": true, "european": true,
	"muslim": true, "labour": true, "house": true, "sunday": true, "english": true, "american": true}

// roleNext says whether token i is a role word ("Green MEP Caroline Lucas"): the word before it is a
// party's name even where it is also a common word.
func roleNext(toks []token, i int) bool {
	if i >= len(toks) {
		return false
	}
	switch strings.ToLower(toks[i].text) {
	case "mp", "mps", "mep", "meps", "msp", "msps", "am", "ams", "party", "leader", "councillor", "councillors", "candidate", "spokesman", "spokeswoman", "peer":
		return true
	}
	return false
}

// commonWords are names that are also common words: opening a sentence, they are taken as the word.
var commonWords = map[string]bool{"reform": true, "respect": true, "green": true, "greens": true, "alliance": true,
	"independent": true, "liberal": true, "commons": true, "lords": true, "speaker": true, "chancellor": true,
	"treasury": true, "cabinet": true, "parliament": true, "westminster": true, "plaid": true}

// findMentions finds the names in a sentence: known names first (the longest that fits), then runs of
// capitalised words that a title, a given name or an organisation's head word makes a name.
func (rd *reading) findMentions(s *sentence) []mention {
	var out []mention
	toks := s.tokens
	for i := 0; i < len(toks); {
		if strings.EqualFold(toks[i].text, "the") {
			i++ // names are matched from their first word, not from "the"
			continue
		}
		if m, n := rd.known(s, i); n > 0 {
			out = append(out, m)
			i += n
			continue
		}
		if w := strings.ToLower(toks[i].text); notNames[w] && !nameParts[w] && !isTitle(w) {
			i++ // "And Liberal Democrat leader …": a function word opens no name
			continue
		}
		if m, n := rd.capitalisedRun(s, i); n > 0 {
			if m.kind != "" {
				out = append(out, m)
			}
			i += n
			continue
		}
		i++
	}
	return rd.councilMentions(s, rd.groupMentions(s, rd.committeeMentions(s, rd.officeMentions(s, out))))
}

// councilsOf names two councils at once: "Burnley and Pendle councils".
var councilsOf = regexp.MustCompile(`\b(\p{Lu}[\p{L}-]+(?:\s+\p{Lu}[\p{L}-]+)?)\s+and\s+(\p{Lu}[\p{L}-]+(?:\s+\p{Lu}[\p{L}-]+)?)\s+((?:borough\s+|county\s+|city\s+|district\s+)?councils)\b`)

// councilMentions reads "Burnley and Pendle councils" as two councils, Burnley Council and Pendle Council,
// in place of whatever else the two names were read as.
func (rd *reading) councilMentions(s *sentence, ms []mention) []mention {
	for _, loc := range councilsOf.FindAllStringSubmatchIndex(s.text, -1) {
		kind := strings.TrimSuffix(strings.TrimSpace(s.text[loc[6]:loc[7]]), "s") // "councils", "county councils"
		words := strings.Fields(kind)
		for i, w := range words {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
		head := strings.Join(words, " ") // "Council", "County Council"
		var add []mention
		for _, g := range [][2]int{{loc[2], loc[3]}, {loc[4], loc[5]}} {
			start, end := s.span.Start+g[0], s.span.Start+g[1]
			first, last := s.tokenRange(start, end)
			if first < 0 || last < first {
				add = nil
				break
			}
			add = append(add, mention{first: first, last: last, span: review.Span{Start: start, End: end}, kind: graph.KindOrganisation,
				text: s.text[g[0]:g[1]] + " " + head})
		}
		if len(add) != 2 {
			continue
		}
		lo, hi := s.span.Start+loc[2], s.span.Start+loc[5]
		ms = slices.DeleteFunc(ms, func(m mention) bool { return m.span.Start < hi && lo < m.span.End })
		ms = append(ms, add...)
	}
	slices.SortFunc(ms, func(a, b mention) int { return a.span.Start - b.span.Start })
	return ms
}

var (
	// groupAfter follows a party named as its local group: "Labour group", "Labour group on Newham Council".
	groupAfter = regexp.MustCompile(`^\s+group\b`)
	// whipAfter follows a party named as its whip: "Labour whip", "Tory chief whip".
	whipAfter = regexp.MustCompile(`^\s+(?:chief\s+|deputy\s+chief\s+)?whip\b`)
	// groupOn joins the group to its council: "… group on Newham Council".
	groupOn = regexp.MustCompile(`^\s+on\s+$`)
	// branchEnd follows a place's branch of a party named without "group": the name stands alone ("members
	// of London UKIP were", "on behalf of Spitalfields & Bangla Town Labour and").
	branchEnd = regexp.MustCompile(`^(?:\s*[,.;:!)]|\s*$|\s+(?:and|were|was|is|are|has|have|had|said|says|will|would|who|which|in|on|at|for)\b)`)
	// placeWords are the lower-case words a group's place may carry: "Devon county Labour group".
	placeWords = map[string]bool{"county": true, "city": true, "borough": true, "district": true, "town": true}
)

// groupMentions reads a party's local group, named in lower case after it ("the Labour group on Newham
// Council", "Devon county Labour group"), as an organisation of its own, part of the party (and of the
// council it sits on).
func (rd *reading) groupMentions(s *sentence, ms []mention) []mention {
	for i := 0; i < len(ms); i++ {
		p := ms[i]
		if !(p.ent != nil && p.ent.kind == graph.KindParty || p.ent == nil && p.kind == graph.KindParty) || p.possessive {
			continue
		}
		// "Labour whip Kim Leadbeater": a party's whip is an office.
		if w := whipAfter.FindStringIndex(s.text[p.span.End-s.span.Start:]); w != nil && i+1 < len(ms) &&
			ms[i+1].span.Start == p.span.End+w[1]+1 && (ms[i+1].kind == graph.KindActor || ms[i+1].ent != nil && ms[i+1].ent.kind == graph.KindActor) {
			end := p.span.End + w[1]
			if f, l := s.tokenRange(p.span.Start, end); f >= 0 && l >= f {
				ms[i] = mention{first: f, last: l, span: review.Span{Start: p.span.Start, End: end}, kind: graph.KindSeat,
					text: s.text[p.span.Start-s.span.Start : end-s.span.Start], within: []mention{p}}
			}
			continue
		}
		loc := groupAfter.FindStringIndex(s.text[p.span.End-s.span.Start:])
		placeOnly := false // "London UKIP", "Spitalfields & Bangla Town Labour": a place's branch, no "group"
		if loc == nil {
			if rest := s.text[p.span.End-s.span.Start:]; !branchEnd.MatchString(rest) {
				continue
			}
			loc, placeOnly = []int{0, 0}, true
		}
		start, end := p.span.Start, p.span.End+loc[1]
		within := []mention{p}
		drop := 1
		if i+1 < len(ms) && groupOn.MatchString(s.text[end-s.span.Start:ms[i+1].span.Start-s.span.Start]) &&
			strings.HasSuffix(strings.ToLower(ms[i+1].text), "council") {
			within = append(within, ms[i+1])
			end = ms[i+1].span.End
			drop = 2
		}
		// The place before: capitalised words and "county" ("Devon county"), after no other mention.
		first, _ := s.tokenRange(p.span.Start, p.span.End)
		k := first
		for k > 0 && (s.tokens[k-1].cap && !notNames[strings.ToLower(s.tokens[k-1].text)] && !branchAdjectives[strings.ToLower(s.tokens[k-1].text)] ||
			placeWords[s.tokens[k-1].text]) && !s.tokens[k-1].possessive &&
			!s.breaksBetween(k-1, k) && !slices.ContainsFunc(ms, func(o mention) bool { return o.span.End > s.tokens[k-1].start && o.span.Start < s.tokens[k-1].end }) {
			k--
		}
		// A place named as a mention of its own just before is the group's: "Devon county Labour group".
		if j := slices.IndexFunc(ms, func(o mention) bool { return k > 0 && o.span.End == s.tokens[k-1].end && !o.possessive }); j >= 0 && j < i &&
			(ms[j].ent == nil && ms[j].kind != graph.KindParty && (ms[j].kind != graph.KindActor || ms[j].first == ms[j].last && ms[j].title == "") ||
				ms[j].ent != nil && ms[j].ent.kind == graph.KindSeat) {
			start = ms[j].span.Start
			ms = slices.Delete(ms, j, j+1)
			i--
		} else if k < first {
			start = s.tokens[k].start
		}
		if placeOnly && (start == p.span.Start || slices.ContainsFunc(ms, func(o mention) bool {
			return o.span.Start < p.span.Start && o.span.End > start && (o.kind == graph.KindActor || o.ent != nil && o.ent.kind == graph.KindActor)
		})) {
			continue // no place before the party: the party itself
		}
		f, l := s.tokenRange(start, end)
		if f < 0 || l < f {
			continue
		}
		g := mention{first: f, last: l, span: review.Span{Start: start, End: end}, kind: graph.KindOrganisation,
			text: s.text[start-s.span.Start : end-s.span.Start], within: within}
		ms = slices.Replace(ms, i, i+drop, g)
	}
	return ms
}

// officeWords are lower-case offices that are not in the gazetteer: "the shadow veterans minister", "a
// shadow minister", "Europe minister", "chief whip".
var officeWords = regexp.MustCompile(`(?:\b(?:the|a|an|former|Former|as|ex-|then) |, )((?:shadow|junior|deputy|assistant)(?: [a-z]+){0,2} (?:minister|secretary|chancellor|whip)(?: for (?:the )?[a-z]+)?|(?:[a-z]+ )?minister for [a-z]+|[a-z]+ minister)\b`)

// committeeWords are a body's committee named in lower case after it: "UKIP's disciplinary committee",
// "the Commons science and technology committee".
var committeeWords = regexp.MustCompile(`^(?:'s|’s)?\s+((?:[a-z]+\s+){0,5}?(?:select\s+|standing\s+)?committee)\b`)

var (
	legislatures      = map[string]bool{"Commons": true, "Lords": true, "House of Commons": true, "House of Lords": true}
	notCommitteeWords = regexp.MustCompile(`\b(?:a|an|the|is|are|was|were|has|have|had|be|been|by|to|of|for|told|said|[a-z]+ing)\s`)
)

// committeeMentions adds the committees committeeWords finds right after a party's or a body's name, each
// marked as part of it.
func (rd *reading) committeeMentions(s *sentence, ms []mention) []mention {
	var added []mention
	for _, m := range ms {
		if m.ent == nil && m.kind != graph.KindOrganisation && m.kind != graph.KindParty ||
			m.ent != nil && m.ent.kind != graph.KindOrganisation && m.ent.kind != graph.KindParty {
			continue
		}
		rest := s.text[m.span.End-s.span.Start:]
		loc := committeeWords.FindStringSubmatchIndex(rest)
		// After a legislature ("the Commons science and technology committee") or a possessive ("UKIP's
		// disciplinary committee"), in words that name a committee, not a clause ("is warning a committee").
		if loc == nil || !m.possessive && !strings.HasPrefix(rest, "'s") && !strings.HasPrefix(rest, "’s") && !legislatures[m.text] ||
			notCommitteeWords.MatchString(strings.ReplaceAll(rest[loc[2]:loc[3]], "standing ", "")) {
			continue
		}
		start, end := m.span.End+loc[2], m.span.End+loc[3]
		first, last := s.tokenRange(start, end)
		if first < 0 || last < first {
			continue
		}
		// Known from an earlier reading (a proposed entity now), it is already a mention: marked so.
		if i := slices.IndexFunc(ms, func(o mention) bool { return o.span == review.Span{Start: start, End: end} }); i >= 0 {
			ms[i].partOf = true
			continue
		}
		if slices.ContainsFunc(ms, func(o mention) bool { return o.span.Start < end && start < o.span.End && o.span != m.span }) {
			continue
		}
		added = append(added, mention{first: first, last: last, span: review.Span{Start: start, End: end}, kind: graph.KindOrganisation,
			text: s.text[start-s.span.Start : end-s.span.Start], partOf: true})
	}
	if len(added) == 0 {
		return ms
	}
	ms = append(ms, added...)
	slices.SortFunc(ms, func(a, b mention) int { return a.span.Start - b.span.Start })
	return ms
}

// tokenRange returns the tokens a span of the document starts and ends on: -1 where it starts or ends
// inside a token.
func (s *sentence) tokenRange(start, end int) (first, last int) {
	first, last = -1, -1
	for i, t := range s.tokens {
		if t.start == start {
			first = i
		}
		if t.end == end {
			last = i
		}
	}
	return first, last
}

// officeMentions adds the offices officeWords finds where no other mention is.
func (rd *reading) officeMentions(s *sentence, ms []mention) []mention {
	for _, loc := range officeWords.FindAllStringSubmatchIndex(s.text, -1) {
		start, end := s.span.Start+loc[2], s.span.Start+loc[3]
		text := s.text[loc[2]:loc[3]]
		if strings.HasPrefix(text, "prime ") || strings.HasPrefix(text, "foreign minister") || strings.HasPrefix(text, "the ") {
			continue
		}
		overlap := false
		for _, m := range ms {
			if m.span.Start < end && start < m.span.End {
				overlap = true
			}
		}
		first, last := s.tokenRange(start, end)
		if overlap || first < 0 || last < first {
			continue
		}
		m := mention{first: first, last: last, span: review.Span{Start: start, End: end}, kind: graph.KindSeat,
			text: strings.ToUpper(text[:1]) + text[1:]}
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b mention) int { return a.span.Start - b.span.Start })
	return ms
}

// known matches the longest lexicon form starting at token i.
func (rd *reading) known(s *sentence, i int) (mention, int) {
	toks := s.tokens
	max := rd.lx.maxLen
	if len(toks)-i < max {
		max = len(toks) - i
	}
	// "the chancellor": an office's one-word name after "the" describes its holder (describe).
	theOffice := false
	if i > 0 && strings.EqualFold(toks[i-1].text, "the") && !toks[i].cap {
		for _, e := range rd.lx.byForm[normalise(toks[i].text)] {
			theOffice = theOffice || e.kind == graph.KindSeat && !e.constituency
		}
	}
	for n := max; n >= 1; n-- {
		if !toks[i].cap && !toks[i].acronym {
			// Lower-case forms are known only when several words long ("home secretary") or a hashtag.
			if n < 2 && !theOffice {
				continue
			}
		}
		last := toks[i+n-1]
		if n > 1 && toks[i+n-2].possessive {
			continue // "Labour's Keir": not one name
		}
		form := normalise(s.textOf(i, i+n-1))
		es := rd.lx.byForm[form]
		if len(es) == 0 {
			continue
		}
		// A lone short word that is also a common word (e.g. "Reform", "Respect" in lower case) must be
		// capitalised; a lone capitalised common word opening a sentence is not a name either.
		// An office before a name is the office even so: "Chancellor Gordon Brown said".
		officeBeforeName := i+1 < len(toks) && toks[i+1].cap && !toks[i].possessive && pick(es).kind == graph.KindSeat && !pick(es).constituency
		if n == 1 && (!toks[i].cap && !theOffice || i == 0 && commonWords[strings.ToLower(toks[i].text)] && !roleNext(toks, i+1) && !officeBeforeName) {
			continue
		}
		e := pick(es)
		if e.constituency && n == 1 && i+n < len(toks) && toks[i+n].cap && !toks[i+n-1].possessive {
			continue // "Gordon Brown" is no seat
		}
		seat := seatWording(s, i, i+n-1)
		if e.constituency && !seat && !electionWords.MatchString(strings.ToLower(s.text)) {
			continue
		}
		// A one-word name proposed by an earlier document ("Baroness Scotland") is that person only after a
		// title: alone, the word is more likely the place.
		if e.kind == graph.KindActor && e.proposed && n == 1 && !(i > 0 && isTitle(toks[i-1].text)) {
			continue
		}
		// A person's name followed by more capitalised words is a longer name ("Ali" in "Ali Khan").
		if e.kind == graph.KindActor && i+n < len(toks) && toks[i+n].cap && !toks[i+n-1].possessive &&
			!notNames[strings.ToLower(toks[i+n].text)] && n == 1 {
			continue
		}
		m := mention{first: i, last: i + n - 1, kind: e.kind, possessive: last.possessive}
		m.span = review.Span{Start: toks[i].start, End: last.end}
		m.text = s.textOf(i, i+n-1)
		m.ent = e
		if i > 0 && isTitle(toks[i-1].text) && e.kind == graph.KindActor {
			m.title = toks[i-1].text
		}
		return m, n
	}
	return mention{}, 0
}

func pick(es []*entry) *entry {
	for _, e := range es {
		if !e.shipped {
			return e
		}
	}
	return es[0]
}

// textOf is the text from token i to token j, inclusive.
func (s *sentence) textOf(i, j int) string {
	return s.text[s.tokens[i].start-s.span.Start : s.tokens[j].end-s.span.Start]
}

// The words before and after a name that make it a seat.
var (
	seatBeforeWords = []string{"mp for ", "member for ", "candidate for ", "stand in ", "standing in ",
		"contest ", "contesting ", "seat of ", "constituency of ", "mp for the ", "candidate in ", "won ", "hold ",
		"stood in ", "representing ", "represented ", "by-election in "}
	seatAfterWords = []string{" seat", " constituency", " mp", " by-election", " division", " candidate", " labour mp",
		" tory mp", " conservative mp", " lib dem mp"}
)

// seatWording says whether the words around tokens i..j make them a seat: "MP for X", "X MP", "the X
// seat", "X constituency", "candidate for X", "stand in X".
func seatWording(s *sentence, i, j int) bool {
	before := strings.ToLower(s.text[:s.tokens[i].start-s.span.Start])
	after := strings.ToLower(s.text[s.tokens[j].end-s.span.Start:])
	if partyInBrackets.MatchString(s.text[:s.tokens[i].start-s.span.Start]) && strings.HasPrefix(strings.TrimSpace(after), ")") {
		return true // "(Labour, Bethnal Green and Bow)"
	}
	for _, b := range seatBeforeWords {
		if strings.HasSuffix(before, b) {
			return true
		}
	}
	for _, a := range seatAfterWords {
		if strings.HasPrefix(after, a) {
			return true
		}
	}
	return false
}

var partyInBrackets = regexp.MustCompile(`\((?:\p{Lu}[\p{L}-]*\s*)+,\s*$`)

// seatBefore says whether the words before token i make what follows a seat: "MP for X".
func seatBefore(s *sentence, i int) bool {
	before := strings.ToLower(s.text[:s.tokens[i].start-s.span.Start])
	return seatLeadIn.MatchString(before)
}

// capitalisedRun reads a run of capitalised words at token i. It returns how many tokens it used, and a
// mention with a kind when the run is a name.
func (rd *reading) capitalisedRun(s *sentence, i int) (mention, int) {
	toks := s.tokens
	if !toks[i].cap || strings.HasPrefix(toks[i].text, "#") || strings.HasPrefix(toks[i].text, "@") {
		return mention{}, 0
	}
	// "British Prime Minister", "Senior Labour backbencher": an adjective before a name that is known
	// without it.
	if (nationality[strings.ToLower(toks[i].text)] || branchAdjectives[strings.ToLower(toks[i].text)]) && i+1 < len(toks) {
		if _, n := rd.known(s, i+1); n > 0 {
			return mention{}, 1
		}
	}
	// "Lawyer Louise Christian", "Australian Mamdouh Habib": an occupation or a nationality opening the
	// sentence, before a given name, is no part of it.
	if w := strings.ToLower(toks[i].text); (occupations[w] || demonyms[w]) && i+1 < len(toks) && toks[i+1].cap && !isTitle(toks[i+1].text) {
		return mention{}, 1
	}
	title := ""
	start := i
	for start < len(toks) && isTitle(toks[start].text) && toks[start].cap {
		title = strings.TrimSuffix(toks[start].text, ".")
		start++
	}
	j := start
	// A title inside a run starts the next name, unless no name follows it ("Fathers 4 Justice, …").
	titleEnds := func(j int) bool {
		return j > start && (j+1 >= len(toks) || !toks[j+1].cap || s.breaksBetween(j, j+1))
	}
	for j < len(toks) && (toks[j].cap && !isFirstPerson(toks[j].text) || j > start && isConnector(toks, j)) && !toks[j].acronym && (!isTitle(toks[j].text) || titleEnds(j)) {
		if (toks[j].text == "and" || toks[j].text == "&") && rd.lx.given[strings.ToLower(toks[start].text)] {
			break // "Tessa Jowell and Deputy Prime Minister John Prescott": two names
		}
		// "Women’s Forum", "People's Party": a possessive inside a body's name goes on to its head word.
		inside := toks[j].possessive && pluralOwners[strings.ToLower(toks[j].text)] && j+1 < len(toks) && toks[j+1].cap &&
			orgHeads[strings.ToLower(toks[j+1].text)] != "" && !s.breaksBetween(j, j+1)
		if !inside && (toks[j].possessive || j+1 < len(toks) && s.breaksBetween(j, j+1)) {
			j++
			break
		}
		j++
	}
	for j > start && isConnector(toks, j-1) {
		j--
	}
	// Two branches of a party run together, as posts write them ("Bethnal Green and Stepney Labour Poplar
	// and Limehouse Labour Party"): the first ends at its party's name.
	var aliases []int
	for k := start; k < j; k++ {
		if w := strings.ToLower(toks[k].text); !commonWords[w] && slices.ContainsFunc(rd.lx.byForm[normalise(w)], func(e *entry) bool { return e.kind == graph.KindParty }) {
			aliases = append(aliases, k)
		}
	}
	if len(aliases) >= 2 && aliases[0] > start && aliases[0]+1 < j {
		if next := strings.ToLower(toks[aliases[0]+1].text); next != "party" && next != "group" && orgHeads[next] == "" {
			j = aliases[0] + 1
		}
	}
	// A name written twice runs into itself in posts ("Tower Hamlets Tower Hamlets Labour Group"): the
	// first copy is a name of its own.
	for k := 1; start+2*k <= j; k++ {
		same := true
		for x := 0; x < k; x++ {
			if toks[start+x].text != toks[start+k+x].text {
				same = false
				break
			}
		}
		if same {
			j = start + k
			break
		}
	}
	// An office ends the run: "Welfare Minister Frank Field" is an office and a person.
	for k := start; k < j-1; k++ {
		if officeHeads[strings.ToLower(toks[k].text)] && k > start {
			j = k + 1
			break
		}
	}
	// Names run together without punctuation, as posts write them ("Shad Chowdhury Nazma Hussain"): a
	// given name after two words starts the next name.
	if title == "" || true {
		for k := start + 2; k < j-1; k++ {
			if rd.lx.given[strings.ToLower(toks[k].text)] && rd.lx.given[strings.ToLower(toks[start].text)] {
				j = k
				break
			}
		}
	}
	used := j - i
	if used == 0 {
		used = 1
	}
	if j == start {
		return mention{}, used
	}
	// Drop sentence-opening and headline words at the run's start ("However Mr", "Speaking").
	for start < j && title == "" && notNames[strings.ToLower(toks[start].text)] &&
		!(nameParts[strings.ToLower(toks[start].text)] && start+1 < j) {
		start++
	}
	if start == j {
		return mention{}, used
	}
	words := make([]string, 0, j-start)
	for k := start; k < j; k++ {
		words = append(words, toks[k].text)
	}
	m := mention{first: start, last: j - 1, title: title, possessive: toks[j-1].possessive}
	m.span = review.Span{Start: toks[start].start, End: toks[j-1].end}
	m.text = s.textOf(start, j-1)
	head := strings.ToLower(words[len(words)-1])
	orgInside := false // "Muslim Association of Britain", "University of Strathclyde"
	for k := start; k+1 < j; k++ {
		if _, ok := orgHeads[strings.ToLower(toks[k].text)]; ok && toks[k+1].text == "of" {
			orgInside = true
		}
	}
	before := strings.ToLower(s.text[:toks[start].start-s.span.Start])
	after := s.text[toks[j-1].end-s.span.Start:]
	switch kind, ok := orgHeads[head]; {
	case title == "" && len(words) >= 2 && head == "mayor" && !anyNotName(words[:len(words)-1]) && !nameParts[strings.ToLower(words[0])] ||
		title == "" && len(words) >= 3 && head == "mayor" && nameParts[strings.ToLower(words[0])]:
		m.kind = graph.KindSeat // "Greater Manchester Mayor"
		m.text = "Mayor of " + strings.Join(words[:len(words)-1], " ")
	case title == "" && len(words) >= 2 && officeHeads[head] && head != "mayor":
		m.kind = graph.KindSeat // "Welfare Minister"
	case (ok || orgInside) && rd.lx.given[strings.ToLower(words[0])] && len(words) >= 3:
		// "the Robert Kilroy-Silk Party": a person's name made a joke, not a body
	case orgInside && len(words) >= 3:
		m.kind = graph.KindOrganisation
	case title == "" && (len(words) > 1 && seatWording(s, start, j-1) || seatBefore(s, start)) && !rd.lx.given[strings.ToLower(words[0])]:
		m.kind = graph.KindSeat // "the East Kilbride seat", "MP for Leyton"
	case !ok && len(words) >= 2 && partyWord[head] && !rd.lx.given[strings.ToLower(words[0])] && !anyNotName(words[:1]) &&
		!branchAdjectives[strings.ToLower(words[0])] && len(rd.lx.surname[strings.ToLower(words[0])]) == 0 &&
		!toks[j-1].possessive && !modifierNoun.MatchString(after):
		m.kind = graph.KindOrganisation // "Spitalfields & Bangla Town Labour": a place's branch of the party
	case ok && len(words) >= 2:
		m.kind = kind
		if kind == graph.KindParty && rd.lx.branchOf(&entry{display: m.text, kind: kind}) != nil {
			m.kind = graph.KindOrganisation // "Poplar and Limehouse Labour Party": a branch of a party
		}
	case title == "" && !rd.lx.given[strings.ToLower(words[0])] && (pollBefore.MatchString(before) && !anyNotName(words[:1]) ||
		len(words) >= 2 && (groupBefore.MatchString(before) || groupAfterName.MatchString(after) ||
			fromBefore.MatchString(before) && strings.HasPrefix(strings.TrimSpace(after), ","))):
		m.kind = graph.KindOrganisation // "John Ison, from the group Fathers 4 Justice", "Jim Parton, from Families Need Fathers, said"
	case title != "":
		m.kind = graph.KindActor
	case len(words) >= 2 && len(words) <= 4 && rd.lx.given[strings.ToLower(words[0])] && !anyNotName(words[1:]):
		m.kind = graph.KindActor
	case len(words) == 2 && rd.lx.given[strings.ToLower(words[0])] && !ok && (personCues.MatchString(before) || personAfter.MatchString(after)):
		m.kind = graph.KindActor // "lawyer Louise Christian, who": a surname that is also a word
	case len(words) >= 2 && len(words) <= 3 && !anyNotName(words[1:]) && (personCues.MatchString(before) || personAfter.MatchString(after)) && !ok:
		m.kind = graph.KindActor // "Labour's Lorna Fitzsimons", "Petrina Holdsworth said"
	case len(words) >= 2 && len(words) <= 4 && !anyNotName(words) && (rd.lx.fuzzy(normalise(m.text), graph.KindActor) != nil ||
		len(rd.lx.surname[strings.ToLower(words[len(words)-1])]) > 0):
		m.kind = graph.KindActor // a known person spelled otherwise, or a known family name
	case len(words) == 1 && !notNames[strings.ToLower(words[0])]:
		m.kind = graph.KindActor // a surname or given name: kept only if it refers to someone named in full
		m.title = ""
		// "his wife Maggie": a given name after kin is that person, named so only.
		if start > 0 && kinWords[strings.ToLower(toks[start-1].text)] && rd.lx.given[strings.ToLower(words[0])] ||
			childList.MatchString(s.text[:toks[start].start-s.span.Start]) {
			m.kin = true // "their two children Emily, 16, and Pelham, 14": each a person of their own
		}
	}
	return m, used
}

func isFirstPerson(w string) bool {
	switch strings.NewReplacer("’", "'").Replace(w) {
	case "I", "I'm", "I've", "I'd", "I'll":
		return true
	}
	return false
}

func anyNotName(ws []string) bool {
	for _, w := range ws {
		if notNames[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// isConnector says whether token j joins capitalised words into one name: "of", "and", "for", "the" in
// "House of Commons", "Standards and Privileges Committee".
func isConnector(toks []token, j int) bool {
	if j == 0 || j+1 >= len(toks) || !toks[j-1].cap || !toks[j+1].cap {
		return false
	}
	switch t := toks[j].text; {
	case t == "and" && partyWord[strings.ToLower(toks[j-1].text)] && !strings.HasPrefix(strings.ToLower(toks[j+1].text), "co-op"):
		return false // "Spitalfields & Bangla Town Labour and Bethnal Green …": two names ("Labour and Co-operative" is one)
	case t == "of", t == "and", t == "for", t == "&", t == "de", t == "van", t == "von", t == "bin", t == "al", t == "ul", t == "el", t == "du":
		return true
	case len(t) == 1 && t[0] >= '0' && t[0] <= '9':
		return true // "Fathers 4 Justice"
	}
	return false
}

// branchAdjectives open a name for a party's wing or era, not a place's branch: "Old Labour".
var branchAdjectives = map[string]bool{"old": true, "new": true, "true": true, "real": true, "blue": true, "red": true,
	"young": true, "modern": true, "traditional": true, "official": true, "independent": true, "senior": true, "top": true,
	"leading": true, "prominent": true, "rebel": true, "like": true, "unlike": true, "vote": true, "backbench": true,
	"grassroots": true, "many": true, "some": true, "most": true, "several": true, "other": true, "angry": true}

// pluralOwners are the plural nouns a body's name may hold in the possessive: "Women’s Forum",
// "People's Party" (not "Australia's Liberal Party").
var pluralOwners = map[string]bool{"women": true, "men": true, "children": true, "people": true, "workers": true,
	"citizens": true, "taxpayers": true, "pensioners": true, "parents": true, "fathers": true, "mothers": true,
	"veterans": true, "farmers": true, "tenants": true, "residents": true, "teachers": true, "nurses": true, "students": true}

// partyWord are the words that end a party's local branch's name: "… Town Labour", "… Conservatives".
var partyWord = map[string]bool{"labour": true, "conservatives": true, "tories": true, "tory": true, "conservative": true}

// breaksBetween says whether punctuation separates tokens i and j: a comma, a bracket, a dash or a quote
// ends a name.
func (s *sentence) breaksBetween(i, j int) bool {
	gap := s.text[s.tokens[i].end-s.span.Start : s.tokens[j].start-s.span.Start]
	gap = strings.TrimPrefix(strings.TrimPrefix(gap, "'s"), "’s")
	return strings.TrimSpace(gap) != ""
}

// Patterns of the wording, compiled once.
var (
	// seatLeadIn ends the words before a seat: "MP for".
	seatLeadIn = regexp.MustCompile(`\b(?:mp|mep|msp|member|candidate) for (?:the )?$|\bseat of $|\bconstituency of $|\bmajority(?: of [\d,]+)? in (?:the )?$`)
)
