package ingest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// Genders a title tells; a person named without one may be either.
var (
	maleTitles   = map[string]bool{"mr": true, "sir": true, "lord": true}
	femaleTitles = map[string]bool{"mrs": true, "ms": true, "miss": true, "lady": true, "baroness": true, "dame": true}
)

// refer links the pronouns "he" and "she", outside quotations, to the last person the paragraph named
// before them whose title does not say otherwise ("Mr Kilroy-Silk … He said he was ashamed": Robert
// Kilroy-Silk). Each becomes a mention of that person, noted as such for the proposals it takes part in.
func (rd *reading) refer(paragraphs []review.Span) {
	gender := map[*entry]string{}
	for _, ms := range rd.mentions {
		for _, m := range ms {
			t := strings.ToLower(strings.TrimSuffix(m.title, "."))
			switch {
			case maleTitles[t]:
				gender[m.ent] = "he"
			case femaleTitles[t]:
				gender[m.ent] = "she"
			}
		}
	}
	para := -1
	var pair [2]*entry // the last two people the document named together ("Mr Blair and Mr Brown")
	var order []*entry // the document's people, in the order first named
	count := map[*entry]int{}
	seen := func(e *entry) {
		if count[e] == 0 {
			order = append(order, e)
		}
		count[e]++
	}
	var last []*entry          // the people of this paragraph and the one before, the last named last
	seenIn := map[*entry]int{} // the paragraph each person was last named or referred to in
	var lastParty *entry       // the party the document named last
	var lastSeat *entry        // the constituency the document named last
	mayors := map[*entry]int{} // how often the document named each mayoralty so far
	var lastMayor *entry       // the mayoralty it named most so far (the last, of those named as often)
	sawMayor := func(e *entry) {
		mayors[e]++
		if lastMayor == nil || mayors[e] >= mayors[lastMayor] {
			lastMayor = e
		}
	}
	// reached takes mention i of the sentence into what the text has named so far.
	reached := func(s *sentence, ms []mention, i int) {
		m := ms[i]
		if m.ent.kind == graph.KindActor && !kinAfter(s, m) {
			last = append(slices.DeleteFunc(last, func(e *entry) bool { return e == m.ent }), m.ent)
			seenIn[m.ent] = para
			if p := coordinatedBefore(s, ms, i); p != nil {
				pair = [2]*entry{p, m.ent}
			}
			seen(m.ent)
		}
		if m.ent.kind == graph.KindParty {
			lastParty = m.ent
		}
		if m.ent.kind == graph.KindSeat && m.ent.constituency {
			lastSeat = m.ent
		}
		if e := mayoralty(m); e != nil {
			sawMayor(e)
		}
	}
	for si := range rd.sentences {
		s := &rd.sentences[si]
		if p := slices.IndexFunc(paragraphs, func(p review.Span) bool { return p.Start <= s.span.Start && s.span.Start < p.End }); p != para {
			// A paragraph may go on about the people of the one before ("… Lutfur Rahman. / After a ban,
			// however, he was back"): they stay, the one named (or referred to) last first; older ones go.
			last = slices.DeleteFunc(last, func(e *entry) bool { return seenIn[e] < p-1 })
			para = p
		}
		ms := rd.mentions[si]
		var added []mention
		next := 0 // the sentence's mentions before the pronoun join last as it is reached
		for ti, tok := range s.tokens {
			for next < len(ms) && ms[next].span.Start < tok.start {
				reached(s, ms, next)
				next++
			}
			w := strings.ToLower(tok.text)
			if s.quoted[clampIndex(tok.start-s.span.Start, len(s.quoted))] {
				continue
			}
			// "the two men", "the pair": the two people the document named together last, or else the two
			// it has named most; one mention, its pair the other.
			if n := pairReference(s.tokens, ti); n > 0 && (pair[0] != nil || len(order) >= 2) {
				span := review.Span{Start: tok.start, End: s.tokens[ti+n-1].end}
				text := s.text[span.Start-s.span.Start : span.End-s.span.Start]
				a, b := pair[0], pair[1]
				if a == nil {
					top := slices.Clone(order)
					slices.SortStableFunc(top, func(x, y *entry) int { return count[y] - count[x] })
					if len(top) > 2 && count[top[1]] == count[top[2]] {
						continue // no two stand out
					}
					a, b = top[0], top[1]
				}
				added = append(added, mention{first: ti, last: ti + n - 1, span: span, text: text, kind: graph.KindActor, ent: a, pair: b,
					pronoun: true, note: text + " → " + a.display + " (of the two people named before)"})
				continue
			}
			// "running for the mayoralty": the mayoralty named most before.
			if w == "the" && lastMayor != nil && ti+1 < len(s.tokens) && strings.EqualFold(s.tokens[ti+1].text, "mayoralty") &&
				(ti+2 >= len(s.tokens) || !strings.EqualFold(s.tokens[ti+2].text, "of")) {
				added = append(added, theReference(s, ti, lastMayor, "the mayoralty named most before"))
				continue
			}
			// "won the seat in 1997": the constituency named last before.
			if w == "the" && lastSeat != nil && ti+1 < len(s.tokens) && (strings.EqualFold(s.tokens[ti+1].text, "seat") || strings.EqualFold(s.tokens[ti+1].text, "constituency")) &&
				!s.tokens[ti+1].possessive && seatAlone(s.tokens[ti+2:]) {
				added = append(added, theReference(s, ti, lastSeat, "the last seat named before"))
				continue
			}
			// "the party": the party named last before, when it stands alone ("the party's", yes; "the party
			// faithful", "the Party of Wales", "the party he once wanted to lead", no).
			if w == "the" && lastParty != nil && ti+1 < len(s.tokens) && strings.EqualFold(s.tokens[ti+1].text, "party") && partyAlone(s.tokens[ti+2:]) {
				added = append(added, theReference(s, ti, lastParty, "the last party named before"))
				continue
			}
			first, lastTok := ti, ti
			possessive := false
			// "his wife Maggie", "her former adviser": the person's, where kin or a past aide follows.
			if (w == "his" || w == "her") && ti+1 < len(s.tokens) && kinOrAideNext(s.tokens[ti+1:]) {
				possessive = true
				w = map[string]string{"his": "he", "her": "she"}[w]
			}
			if w != "he" && w != "she" {
				var ok bool
				if lastTok, ok = roleReference(s.tokens, ti); !ok {
					continue
				}
				w = ""
			}
			var who *entry
			for i := len(last) - 1; i >= 0; i-- {
				if g := gender[last[i]]; g == "" || w == "" || g == w {
					who = last[i]
					break
				}
			}
			if who == nil {
				continue
			}
			// The person referred to is the one the text is about now.
			last, seenIn[who] = append(slices.DeleteFunc(last, func(e *entry) bool { return e == who }), who), para
			span := review.Span{Start: tok.start, End: s.tokens[lastTok].end}
			text := s.text[span.Start-s.span.Start : span.End-s.span.Start]
			added = append(added, mention{first: first, last: lastTok, span: span, text: text, possessive: possessive,
				kind: graph.KindActor, ent: who, pronoun: true, note: text + " → " + who.display + " (the last person named before)"})
		}
		for ; next < len(ms); next++ {
			reached(s, ms, next)
		}
		if len(added) > 0 {
			all := append(slices.Clone(ms), added...)
			slices.SortStableFunc(all, func(a, b mention) int { return a.span.Start - b.span.Start })
			rd.mentions[si] = all
		}
	}
}

// kinAfter reports whether a possessive mention names someone's kin ("the prime minister's wife"): the
// person the sentence goes on about is the kin, not the one named.
func kinAfter(s *sentence, m mention) bool {
	if !m.possessive {
		return false
	}
	rest := strings.Fields(strings.ToLower(strings.TrimLeft(s.text[m.span.End-s.span.Start:], "'’s ")))
	return len(rest) > 0 && kinWords[strings.Trim(rest[0], ",.")]
}

// kinOrAideNext reports whether the tokens start with a family word or a past aide ("wife", "former
// adviser"): what "his" and "her" then stand before is that person's.
func kinOrAideNext(toks []token) bool {
	w := strings.ToLower(toks[0].text)
	if kinWords[w] {
		return true
	}
	for k := 0; k < len(toks) && k < 5; k++ {
		if strings.EqualFold(toks[k].text, "constituents") {
			return k > 0 && toks[0].cap // "his East Midlands constituents": the seat is his
		}
	}
	if eventNouns[w] {
		return true // "his appointment as chairman of the British Council": his
	}
	if (w == "new" || w == "newly-founded" || w == "newly-formed") && len(toks) > 1 {
		// "his new party Aspire", "his newly-founded party, the Respect Coalition": the party is his.
		n := strings.ToLower(toks[1].text)
		return n == "party" || n == "political" && len(toks) > 2 && strings.EqualFold(toks[2].text, "party")
	}
	return (w == "former" || w == "ex") && len(toks) > 1 && aideWords[strings.ToLower(toks[1].text)]
}

var (
	kinWords  = map[string]bool{"wife": true, "husband": true, "son": true, "daughter": true, "father": true, "mother": true, "brother": true, "sister": true, "partner": true, "widow": true, "cousin": true, "nephew": true, "niece": true, "uncle": true, "aunt": true, "grandson": true, "granddaughter": true}
	aideWords = map[string]bool{"adviser": true, "advisor": true, "aide": true, "spokesman": true, "spokeswoman": true, "deputy": true, "assistant": true, "researcher": true, "press": true, "special": true, "chief": true}
)

// eventNouns name what a person did or had done to them: "his appointment as", "her resignation from".
var eventNouns = map[string]bool{"appointment": true, "election": true, "resignation": true, "membership": true,
	"defection": true, "departure": true, "acceptance": true, "selection": true, "sacking": true, "suspension": true,
	"expulsion": true, "deselection": true, "nomination": true}

// roleWords are the roles a person is referred to by after being named ("the MP", "the former minister").
var roleWords = map[string]bool{"mp": true, "mep": true, "msp": true, "minister": true, "councillor": true, "politician": true, "peer": true}

// roleReference reports whether the tokens from i are "the (former|ex-) ROLE" standing for a person named
// before, not describing one named after or a post ("the MP for Luton South", "the minister, Charles
// Clarke", "the MP's"), and returns its last token.
func roleReference(toks []token, i int) (int, bool) {
	if strings.ToLower(toks[i].text) != "the" {
		return 0, false
	}
	j := i + 1
	if j < len(toks) && (strings.EqualFold(toks[j].text, "former") || strings.EqualFold(toks[j].text, "ex")) {
		j++
	}
	if j >= len(toks) || !roleWords[strings.ToLower(toks[j].text)] || toks[j].possessive {
		return 0, false
	}
	if j+1 < len(toks) {
		next := toks[j+1]
		if n := strings.ToLower(next.text); n == "for" || n == "of" || n == "in" || next.cap {
			return 0, false
		}
	}
	return j, true
}

// partyAlone reports whether "the party" before these tokens is a party itself, not a kind of thing
// ("the party faithful", "the party conference") or a name ("the Party of Wales").
func partyAlone(toks []token) bool {
	if len(toks) == 0 {
		return true
	}
	w := strings.ToLower(toks[0].text)
	return !toks[0].cap && !partyNouns[w] && !relativeOpeners[w] && w != "of" && w != "-"
}

// relativeOpeners start a clause that says which party is meant ("the party the men have left", "the
// party he once wanted to lead"): a description, not the party named before.
var relativeOpeners = map[string]bool{"the": true, "he": true, "she": true, "they": true, "we": true, "i": true,
	"you": true, "it": true, "which": true, "that": true, "who": true, "whose": true}

// coordinatedBefore is the person named just before mention i and joined to it by "and" ("Tony Blair and
// Gordon Brown"), if any.
func coordinatedBefore(s *sentence, ms []mention, i int) *entry {
	if i == 0 || ms[i-1].ent.kind != graph.KindActor || ms[i-1].ent == ms[i].ent || ms[i-1].pronoun || ms[i].pronoun {
		return nil
	}
	gap := strings.TrimSpace(s.text[ms[i-1].span.End-s.span.Start : ms[i].span.Start-s.span.Start])
	if gap != "and" && !coordinatedTitle.MatchString(gap) {
		return nil
	}
	return ms[i-1].ent
}

// pairReference reports how many tokens from i say "the two men", "the pair" or "both men": two people
// named before.
func pairReference(toks []token, i int) int {
	w := strings.ToLower(toks[i].text)
	next := func(k int) string {
		if i+k < len(toks) {
			return strings.ToLower(toks[i+k].text)
		}
		return ""
	}
	switch {
	case w == "the" && next(1) == "two" && pairNouns[next(2)]:
		return 3
	case w == "the" && next(1) == "pair" && !toks[i+1].possessive:
		return 2
	case w == "both" && pairNouns[next(1)]:
		return 2
	}
	return 0
}

var pairNouns = map[string]bool{"men": true, "women": true, "leaders": true, "politicians": true, "rivals": true, "ministers": true}

// mayoralty is the mayor's office a mention names, itself or as its holder's description ("the Mayor of
// Tower Hamlets said").
func mayoralty(m mention) *entry {
	e := m.ent
	if m.post != nil {
		e = m.post
	}
	if m.pronoun || e.kind != graph.KindSeat || !strings.HasPrefix(e.display, "Mayor of ") {
		return nil
	}
	return e
}

// theReference is "the party", "the seat" or "the mayoralty" at token i as a mention of e, named before.
func theReference(s *sentence, i int, e *entry, why string) mention {
	span := review.Span{Start: s.tokens[i].start, End: s.tokens[i+1].end}
	text := s.text[span.Start-s.span.Start : span.End-s.span.Start]
	return mention{first: i, last: i + 1, span: span, text: text, possessive: s.tokens[i+1].possessive, kind: e.kind, ent: e,
		pronoun: true, note: text + " → " + e.display + " (" + why + ")"}
}

// seatAlone reports whether "the seat" before these tokens is one named before, not one named after ("the
// seat of Bethnal Green", "the seat he won").
func seatAlone(toks []token) bool {
	if len(toks) == 0 {
		return true
	}
	w := strings.ToLower(toks[0].text)
	return !toks[0].cap && w != "of" && w != "for" && !relativeOpeners[w]
}

// partyNouns follow "the party" to make it a modifier: "the party leader" is a person.
var partyNouns = map[string]bool{"leader": true, "leaders": true, "leadership": true, "faithful": true, "conference": true,
	"chairman": true, "chair": true, "treasurer": true, "members": true, "member": true, "machine": true, "whip": true,
	"line": true, "system": true, "system's": true, "spokesman": true, "spokeswoman": true, "official": true, "officials": true,
	"activists": true, "chairmanship": true, "political": true, "candidate": true, "candidates": true, "election": true,
	"elections": true, "donor": true, "donors": true, "funding": true, "funds": true, "headquarters": true, "hq": true, "manifesto": true,
	"broadcast": true, "political broadcast": true, "policy": true, "policies": true, "grassroots": true, "faithfuls": true}

var (
	// pastBefore ends the words before a post described as someone's past or passing one: "the former",
	// "the outgoing", "the ex-".
	pastBefore = regexp.MustCompile(`(?i)\bthe\s+(former|outgoing|ex-)\s*$`)
	// memberFor ends the words before a seat described as its member's: "the MP for", "the former MP for".
	memberFor = regexp.MustCompile(`(?i)\bthe\s+(former\s+)?(?:mp|member)\s+for\s+$`)
	// seatMember follows a seat described as its member's: "the Ealing North MP".
	seatMember = regexp.MustCompile(`^\s+(?:mp|MP|MEP|MSP|AM)\b`)
	// memberBefore and memberAfter surround a person called a member of a legislature.
	memberBefore = regexp.MustCompile(`\b(?:MP|MEP|MSP|AM|backbencher|frontbencher)\s+(?:(?:Mr|Mrs|Ms|Dr|Sir|Lord|Lady|Baroness)\.?\s+)?$`)
	memberAfter  = regexp.MustCompile(`^(?:\s+|,\s+(?:the|a|an)\s+(?:[A-Za-z-]+\s+){0,3})(?:MP|MEP|MSP|AM)\b`)
	// nameNext follows a description that names its holder after it: "the MP for Luton South, Rachel Hopkins".
	nameNext = regexp.MustCompile(`^,?\s*(?:(?:Mr|Mrs|Ms|Dr|Sir|Lord|Lady|Baroness)\.?\s+)?\p{Lu}`)
)

// roleDescriptions reads a description of a past post, or of a seat's member, without a name ("the former
// Labour leader said", "the outgoing European Commissioner", "The MP for Ealing North claimed"): a post the
// graph or polgraph's record knows is the one person the document names who held it; another, and a seat's
// member, the last person named before (for a post, only when the document is about that person). The
// graph's holder of a current post is read by describe.
func (rd *reading) roleDescriptions() {
	// Who the document calls a member of a legislature ("Labour MP Stephen Pound", "Mr Kilroy-Silk MEP"):
	// only such a person is "the MP for Ealing North" named before.
	members := map[*entry]bool{}
	for si := range rd.sentences {
		s := &rd.sentences[si]
		for _, m := range rd.mentions[si] {
			if m.ent.kind == graph.KindActor && !m.pronoun && (memberBefore.MatchString(s.text[:m.span.Start-s.span.Start]) ||
				memberAfter.MatchString(s.text[m.span.End-s.span.Start:])) {
				members[m.ent] = true
			}
		}
	}
	// The document's people, and the one it names most: whom it is about.
	var people []*entry
	named := map[*entry]int{}
	var mostNamed *entry
	for _, ms := range rd.mentions {
		for _, m := range ms {
			if m.ent.kind == graph.KindActor && !m.pronoun {
				if named[m.ent] == 0 {
					people = append(people, m.ent)
				}
				named[m.ent]++
				if mostNamed == nil || named[m.ent] > named[mostNamed] {
					mostNamed = m.ent
				}
			}
		}
	}
	var last *entry
	for si := range rd.sentences {
		s := &rd.sentences[si]
		ms := rd.mentions[si]
		for mi := range ms {
			m := &ms[mi]
			if m.ent.kind == graph.KindActor {
				last = m.ent
				continue
			}
			if last == nil || m.post != nil || m.possessive || s.quoted[clampIndex(m.span.Start-s.span.Start, len(s.quoted))] {
				continue
			}
			before, after := s.text[:m.span.Start-s.span.Start], s.text[m.span.End-s.span.Start:]
			start, end, past := -1, m.span.End-s.span.Start, false
			switch {
			case m.ent.kind == graph.KindParty:
				loc := pastBefore.FindStringSubmatchIndex(before)
				lead := leaderAfter.FindStringIndex(after)
				if loc == nil || lead == nil || partLeader.MatchString(after[lead[1]:]) {
					continue
				}
				start, end, past = loc[0], end+lead[1], !strings.EqualFold(before[loc[2]:loc[3]], "outgoing")
			case m.ent.kind == graph.KindSeat && !m.ent.constituency:
				loc := pastBefore.FindStringSubmatchIndex(before)
				if loc == nil {
					continue
				}
				start, past = loc[0], !strings.EqualFold(before[loc[2]:loc[3]], "outgoing")
			case m.ent.kind == graph.KindSeat && members[last]:
				if loc := memberFor.FindStringSubmatchIndex(before); loc != nil {
					start, past = loc[0], loc[2] >= 0
				} else if loc := seatMember.FindStringIndex(after); loc != nil && descriptionBefore.MatchString(before) {
					start, end = descriptionBefore.FindStringIndex(before)[0], end+loc[1]
				} else {
					continue
				}
			default:
				continue
			}
			if nameNext.MatchString(s.text[end:]) {
				continue // "the former Labour leader Neil Kinnock": the name is there
			}
			text := s.text[start:end]
			who, note := last, fmt.Sprintf("%s → %s (the last person named before)", text, last.display)
			if !m.ent.constituency {
				// A past post the graph or polgraph's record knows: the one person the document names who held
				// it ("the former home secretary" is David Blunkett, not the Tony Blair who spoke of him); one
				// it does not know: the person the document is about, if it was the last named.
				typ := graph.HoldsOffice
				if m.ent.kind == graph.KindParty {
					typ = graph.Leads
				}
				if held, known := rd.heldByNamed(m.ent, typ, people); known {
					if held == nil {
						continue
					}
					who, note = held, fmt.Sprintf("%s → %s, named in the document, who held it", text, held.display)
				} else if last != mostNamed {
					continue
				}
			}
			m.post, m.pastPost = m.ent, past
			m.ent, m.kind, m.pronoun, m.text = who, graph.KindActor, true, text
			m.span = review.Span{Start: s.span.Start + start, End: s.span.Start + end}
			m.note = note
		}
	}
}
