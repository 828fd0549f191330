package ingest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// verbRule proposes a relation where a sentence's wording matches: the subject is the nearest fitting
// mention before the wording, the object the nearest after it (reversed for passives: "X was accused by
// Y").
type verbRule struct {
	name    string
	typ     graph.RelationType
	re      *regexp.Regexp // matched against the lower-cased sentence
	passive bool           // the subject follows the wording ("… by Y"), the object precedes it
	// reverse makes the mention before the wording the relation's object: "UKIP suspended X" is X
	// SUSPENDED_FROM UKIP.
	reverse bool
	conf    float64
	// objectKinds, when set, narrow the object's kinds beyond what the vocabulary allows.
	objectKinds []graph.Kind
	role        string
	// after, when set, must match the text after the wording: "holding X to account"; notAfter must not
	// ("joined by" is no joining).
	after, notAfter *regexp.Regexp
	// notAfterObject must not match the text after the object: "led Care International operations" led
	// operations, not the organisation.
	notAfterObject *regexp.Regexp
	// afterObject, when set, must match the text after the object: "called on X to resign".
	afterObject *regexp.Regexp
	// factual rules state what was done even in words that otherwise mark a wish ("called on X to
	// resign" is a call made).
	factual bool
}

func rx(s string) *regexp.Regexp { return regexp.MustCompile(`\b(?:` + s + `)\b`) }

var (
	personOrParty = []graph.Kind{graph.KindActor, graph.KindParty}
	groupKinds    = []graph.Kind{graph.KindParty, graph.KindOrganisation}
	seatKinds     = []graph.Kind{graph.KindSeat}
)

var verbRules = []verbRule{
	{name: "endorsed-by", typ: graph.Endorses, re: rx(`(?:endorsed|backed|supported) by`), passive: true, conf: 0.75},
	{name: "endorses", typ: graph.Endorses, re: rx(`endorse[sd]?|endorsing|back(?:s|ed|ing)|support(?:s|ed|ing)?(?: for)?|backing for|(?:declared?|declaring|gave|give|giving|giving|has|have|had|his|her|their|offered|offering) (?:his |her |their |full |indirect |public )?(?:support|backing) (?:for|to)|campaign(?:ed|ing)? for|vote for|voted for|throw(?:n)? (?:his|her|their) weight behind|urged [a-z ]{1,30}? to (?:vote for|back|support)|gave (?:his|her|their) backing to|threw (?:his|her|their) (?:support|weight) behind`), conf: 0.7, objectKinds: personOrParty},
	{name: "accused-by", typ: graph.Accused, re: rx(`(?:been|was|were|is|are|being) accused by`), passive: true, conf: 0.8},
	{name: "accused", typ: graph.Accused, re: rx(`accuse[sd]?|accusing|made (?:such )?allegations against|alleged(?: that)?|blamed|blames|blaming`), conf: 0.75,
		notAfter: regexp.MustCompile(`^\s+(?:to|of)\b`)},
	{name: "criticised-by", typ: graph.Criticised, re: rx(`(?:criticised|criticized|attacked|condemned) by`), passive: true, conf: 0.75},
	{name: "criticised", typ: graph.Criticised, re: rx(`critici[sz](?:e|es|ed|ing)|attack(?:s|ed|ing)|condemn(?:s|ed|ing)?|slamm?(?:ed|s|ing)?|lambast(?:s|ed|ing)?|hit out at|hits out at|rebuk(?:e|ed|es|ing)|blast(?:s|ed|ing)|derid(?:e|ed|es|ing)|mock(?:s|ed|ing)|denounc(?:e|ed|es|ing)|rounded on|turned on|labelled|branded`), conf: 0.65},
	{name: "held-to-account", typ: graph.Criticised, re: rx(`holding|held|hold`), after: regexp.MustCompile(`^[^,.;]{1,60}? to account`), conf: 0.65},
	{name: "called-to-resign", typ: graph.Criticised, re: rx(`call(?:ed|s|ing)? (?:on|for)|urg(?:ed|es|ing)|demand(?:ed|s|ing)|told|challeng(?:ed|es|ing)`),
		afterObject: regexp.MustCompile(`^(?:'s|’s)?\s+(?:to (?:resign|quit|stand down|step down|go)\b|resignation\b|sacking\b|removal\b)`), conf: 0.7, factual: true},
	{name: "deselected", typ: graph.Deselected, re: rx(`(?:deselected|de-selected|dropped|removed|withdrawn) as (?:the party's |the party’s |its |their |a )?candidate (?:for|in)|deselected as|de-selected as`), conf: 0.8, objectKinds: seatKinds},
	{name: "removed-from", typ: graph.RemovedFromOffice, re: rx(`removed (?:as|from)|ousted as|ousted from|sacked (?:as|from)|dismissed (?:as|from)|stripped of|expelled from`), conf: 0.8, objectKinds: seatKinds},
	{name: "suspended-from", typ: graph.SuspendedFrom, re: rx(`suspended (?:from|by)|(?:had|has|have) (?:had )?the whip withdrawn|lost the (?:party )?whip`), conf: 0.8},
	{name: "suspended", typ: graph.SuspendedFrom, re: rx(`suspended|(?:has |had )?withdrawn the whip from`), reverse: true, conf: 0.75},
	{name: "resigned-from", typ: graph.ResignedFrom, re: rx(`resign(?:ed|s|ing)? (?:from|as)|quit(?:s|ting)?|defect(?:ed|s|ing)? from|switch(?:ed|es|ing)? from|resignation (?:letter )?from|stand(?:s|ing)? down as|stood down as|step(?:s|ped|ping)? down as|walked out of|broke (?:away )?from|broken (?:away )?from`), conf: 0.75},
	{name: "left", typ: graph.ResignedFrom, re: rx(`left|leaving|leaves`), after: regexp.MustCompile(`^\s+(?:the\s+)?\p{Lu}`), conf: 0.7},
	{name: "founded", typ: graph.Founded, re: rx(`found(?:ed|s|ing)|set up|launch(?:ed|es|ing)|form(?:ed|s|ing)|establish(?:ed|es|ing)|creat(?:ed|es|ing)`), conf: 0.7, objectKinds: groupKinds},
	{name: "dissolved", typ: graph.Dissolved, re: rx(`dissolv(?:ed|es|ing)|disband(?:ed|s|ing)|wound up|wind(?:s|ing)? up|deregister(?:ed|s|ing)|de-register(?:ed|s|ing)|struck off`), conf: 0.7, objectKinds: groupKinds},
	{name: "defeated-by", typ: graph.Defeated, re: rx(`(?:defeated|beaten|ousted|unseated) by|lost to`), passive: true, conf: 0.75},
	{name: "defeated", typ: graph.Defeated, re: rx(`defeat(?:ed|s|ing)|beat|ousted|unseat(?:ed|s|ing)|inflicted (?:a |an )?[a-z ]{0,20}defeat on`), conf: 0.7},
	{name: "candidate-for", typ: graph.CandidateFor, re: rx(`candidate (?:for|in|of)|stand(?:s|ing)? (?:in|for)|stood (?:in|for)|contest(?:s|ed|ing)?|selected (?:for|in|to fight)|run(?:s|ning)?(?: [a-z]+ly)? (?:for|in)|ran(?: [a-z]+ly)? (?:for|in)|fight(?:ing)?|standing to be|is to stand in|due to stand in`), conf: 0.7, objectKinds: seatKinds},
	{name: "sits-on", typ: graph.MemberOf, re: rx(`sits? on|sat on|serv(?:es|ed|ing) on|(?:a )?member of|(?:a |his |her )?seat in`), conf: 0.7, objectKinds: groupKinds},
	{name: "switched-to", typ: graph.MemberOf, re: rx(`(?:defect(?:ed|s|ing)?|switch(?:ed|es|ing)?|mov(?:ed|es|ing)|crossed) from [^.;]{1,40}? to`), conf: 0.75, objectKinds: groupKinds},
	{name: "member-of", typ: graph.MemberOf, re: rx(`candidate of|(?:a |an )?member of|membership of|joined|join(?:s|ing)?|defect(?:ed|s|ing)? to|(?:re-?)?admitted to|signed up to|switched to|crossed the floor to`), conf: 0.7, objectKinds: groupKinds,
		notAfter: regexp.MustCompile(`^\s+(?:[a-z]+\s+){0,4}by\b`)},
	{name: "holds-office", typ: graph.HoldsOffice, re: rx(`(?:his|her) (?:own )?(?:constituency|seat)(?: of)?|(?:mp|mep|msp|am|member|councillor|cllr) for|became|appointed(?: as)?|named(?: as)?|elected(?: as)?|re-elected(?: as)?|promoted to|serv(?:es|ed|ing) as|represent(?:s|ed|ing)|the current|sworn in as|won`), conf: 0.7, objectKinds: seatKinds},
	{name: "leads", typ: graph.Leads, re: rx(`lead(?:s|ing)?|led|leader of|chairman of|chair of|head of|heads|headed|in charge of`), conf: 0.7,
		notAfterObject: regexp.MustCompile(`^(?:'s|’s)?\s+(?:operations?|campaigns?|delegations?|teams?|efforts?|work|list|group|side|attack|charge|opposition|response|calls?|criticism|protests?|march|revolt|rebellion|delegation|talks|inquiry|review)\b`)},
	{name: "worked-with", typ: graph.FormerlyWorkedWith, re: rx(`(?:previously|formerly|once) work(?:ed|ing) with|worked (?:closely )?(?:with|for|alongside)|former (?:aide|adviser|advisor|colleague|ally|deputy|assistant|researcher|staffer|right-hand man) (?:of|to)`), conf: 0.75},
	{name: "family", typ: graph.Family, re: rx(`(?:and|with) (?:his|her) (?:wife|husband|son|daughter|brother|sister|father|mother|partner)`), conf: 0.75},
	{name: "appeared-with", typ: graph.AppearedWith, re: rx(`appear(?:ed|s|ing)? (?:with|alongside)|pictured (?:with|alongside)|shar(?:ed|es|ing) (?:a )?(?:platform|stage) with|joined on stage by|march(?:ed|ing)? (?:with|alongside)|alongside`), conf: 0.65},
	{name: "campaigned-with", typ: graph.CampaignedWith, re: rx(`campaign(?:ed|ing) (?:with|alongside)|canvass(?:ed|ing)? (?:with|alongside)|on the doorstep with|out (?:campaigning|canvassing) with|with our (?:good )?friends?`), conf: 0.7},
}

// Wording that changes a claim's status or rules the reading out.
var (
	defence      = regexp.MustCompile(`\b(?:nothing|no one|nobody|none)\s+(?:\w+\s+){0,2}$`)
	negation     = regexp.MustCompile(`\b(?:not|never|no longer|denied|denies|deny|denying|refused to|refuses to|declined to|rejected (?:claims|reports|suggestions|allegations)|dismissed (?:claims|reports|suggestions|allegations)|refuted|no truth|false (?:claims|reports)|untrue|nothing to do with|no links?)\b|n't\b|n’t\b`)
	nonCommittal = regexp.MustCompile(`\b(?:disclose|confirm|say|reveal|declare|comment|agree to speak|speak|answer|rule out|ruled out)\b`)
	hypothetical = regexp.MustCompile(`\b(?:would|could|can|might|may|if|whether|plans? to|pledged? to|promised? to|vowed? to|planning to|considering|consider|expected to|likely to|hopes? to|hoping to|intends? to|intending to|threat(?:ens|ened)? to|talk (?:of|that)|should|wants? to|ready to|poised to|set to|aims? to|bid to|tipped to|urged to|called on|calls on|asked to|challenged .{1,40} to|try(?:ing)? to|tried to|will)\b`)
	hearsay      = regexp.MustCompile(`\b(?:alleged(?:ly)?|allegations?|reportedly|(?:is|are|was|were) said to|rumou?r(?:s|ed)?|according to|claim(?:s|ed|ing)? (?:that|to)|supporters (?:say|said|are telling|claim)|telling .{1,60} that|sources (?:say|said|close)|it is understood|suggest(?:s|ed|ing) that|(?:says|said|told|insisted|argued|believes?) (?:that )?)\b`)
	speechVerb   = regexp.MustCompile(`\b(?:said|says|say|told|claimed|claims|claim|claiming|insisted|insist|insists|argued|argues|argue|warned|warns|warn|added|explained|stated|believes|believe|wrote|branded|branding|likened|saying|suggested|suggests|described|describing|declared|declaring)\b`)
)

// relations proposes the relations of every sentence, one per reading: the best claim for a (type, from,
// to, status) within the document.
func (rd *reading) relations() []review.Proposal {
	var out []review.Proposal
	best := map[string]int{}
	// Who holds an office, where the document says so ("Deputy Prime Minister John Prescott"): "the
	// deputy prime minister" elsewhere in it means that person; an office the document gives two people
	// stands for neither.
	holders := map[*entry]*entry{}
	offices := map[*entry][]*entry{} // each person's offices, as the document names them
	for k, who := range rd.namedHolders() {
		if k.typ == graph.HoldsOffice && len(who) == 1 {
			holders[k.post] = who[0]
			offices[who[0]] = append(offices[who[0]], k.post)
		}
	}
	// "Committee chairman Barry Sheerman said": the chair of the committee the document named last.
	var lastCommittee *entry
	var bodies []*entry // the organisations the document named so far, outlets and places aside
	speakers := rd.quoteSpeakers(rd.paragraphs)
	for si := range rd.sentences {
		s := &rd.sentences[si]
		ms := rd.mentions[si]
		if len(ms) > 0 && ms[0].ent.kind == graph.KindActor && !strings.HasSuffix(strings.TrimSpace(s.text), "?") && lastCommittee != nil {
			if loc := committeeChair.FindStringSubmatchIndex(s.text); loc != nil && loc[1] == ms[0].span.Start-s.span.Start {
				p := review.Proposal{Type: graph.Leads, From: ms[0].ent.name, To: lastCommittee.name, Role: strings.ToLower(s.text[loc[2]:loc[3]]),
					Status: graph.StatusReported, Rule: "committee-chair", Confidence: 0.7, Excerpt: s.text, Span: s.span,
					Resolved: []string{fmt.Sprintf("%s → %s, the committee named before", strings.TrimSpace(s.text[:loc[3]]), lastCommittee.display)}}
				key := strings.Join([]string{string(p.Type), string(p.From), string(p.To), string(p.Status)}, "|")
				if _, ok := best[key]; !ok {
					best[key] = len(out)
					out = append(out, p)
				}
			}
		}
		// "General secretary Brendan Barber warned": the head of the body the document named last, when it
		// named one body only so far (else whose head is not said).
		if len(ms) > 0 && ms[0].ent.kind == graph.KindActor && len(bodies) == 1 && bodyHead.MatchString(s.text[:ms[0].span.Start-s.span.Start]) {
			role := strings.ToLower(strings.TrimSpace(s.text[:ms[0].span.Start-s.span.Start]))
			p := review.Proposal{Type: graph.Leads, From: ms[0].ent.name, To: bodies[0].name, Role: role,
				Status: graph.StatusReported, Rule: "body-head", Confidence: 0.65, Excerpt: s.text, Span: s.span,
				Resolved: []string{fmt.Sprintf("%s → %s, the one body named before", strings.TrimSpace(s.text[:ms[0].span.Start-s.span.Start]), bodies[0].display)}}
			key := strings.Join([]string{string(p.Type), string(p.From), string(p.To), string(p.Status)}, "|")
			if _, ok := best[key]; !ok {
				best[key] = len(out)
				out = append(out, p)
			}
		}
		for _, m := range ms {
			if m.ent.kind == graph.KindOrganisation && strings.HasSuffix(strings.ToLower(m.ent.display), "committee") {
				lastCommittee = m.ent
			}
			if m.ent.kind == graph.KindOrganisation && !placeOrOutlet[m.ent.name] && !slices.Contains(bodies, m.ent) {
				bodies = append(bodies, m.ent)
			}
		}
		var quoted []candidate
		if speakers[si] != nil {
			quoted = quotedCriticism(s, ms, speakers[si])
		}
		if strings.HasSuffix(strings.TrimSpace(s.text), "?") {
			continue
		}
		var got []review.Proposal
		// One mention may say something on its own: a local group or a branch is part of its party.
		if len(ms) >= 2 || len(quoted) > 0 || slices.ContainsFunc(ms, func(m mention) bool {
			return len(m.ent.within) > 0 || (m.ent.kind == graph.KindOrganisation || m.ent.kind == graph.KindParty) && rd.lx.branchOf(m.ent) != nil
		}) {
			got = rd.sentenceRelations(s, ms, holders, quoted)
		}
		got = append(got, rd.shadowMembers(s, ms, got)...)
		got = append(got, rd.leftOffice(s, ms, offices)...)
		for _, p := range got {
			if p.From == p.To {
				continue
			}
			if p.Type.Symmetric() && p.To < p.From {
				p.From, p.To = p.To, p.From
			}
			key := strings.Join([]string{string(p.Type), string(p.From), string(p.To), string(p.Status)}, "|")
			if i, ok := best[key]; ok {
				if p.Confidence > out[i].Confidence {
					out[i] = p
				}
				continue
			}
			best[key] = len(out)
			out = append(out, p)
		}
	}
	out = append(out, rd.deniedCriticism(out)...)
	return rd.dropOwnSide(out)
}

// candidate is a relation a sentence states, before its claim is made.
type candidate struct {
	typ      graph.RelationType
	from, to mention
	rule     string
	conf     float64
	role     string
	at       int // byte offset in the sentence of the wording, for status and date
	wording  review.Span
	factual  bool // see verbRule.factual
	// described marks a relation read from how a name is described ("former home secretary David
	// Blunkett"): the outlet's own words, so reported, whoever speaks in the sentence.
	described bool
	// spoken marks a criticism read from what its speaker said, the speaker named after it ("…, X said"):
	// the outlet reports the saying, whatever the words said contain.
	spoken bool
	// ended marks a state described as past ("former", "ex-"): it never stands as a current one.
	ended bool
}

// officeTypes are the types whose ends may be an office itself; elsewhere an office stands for its
// holder ("accused the prime minister").
var officeTypes = map[graph.RelationType]bool{graph.HoldsOffice: true, graph.CandidateFor: true,
	graph.RemovedFromOffice: true, graph.Deselected: true, graph.ResignedFrom: true, graph.Leads: true, graph.PartOf: true, graph.SucceededBy: true}

func (rd *reading) sentenceRelations(s *sentence, ms []mention, holders map[*entry]*entry, quoted []candidate) []review.Proposal {
	cands := quoted
	cands = append(cands, rd.modifierRelations(s, ms)...)
	lower := strings.ToLower(s.text)
	claimed := map[graph.RelationType][][]int{} // wording a rule has read: a later rule of the type does not read it again
	for _, r := range verbRules {
	match:
		for _, loc := range r.re.FindAllStringIndex(lower, -1) {
			for _, c := range claimed[r.typ] {
				if loc[0] < c[1] && c[0] < loc[1] {
					continue match
				}
			}
			if r.after != nil && !r.after.MatchString(lower[loc[1]:]) || r.notAfter != nil && r.notAfter.MatchString(lower[loc[1]:]) {
				continue
			}
			found := r.apply(s, ms, loc)
			if len(found) > 0 {
				claimed[r.typ] = append(claimed[r.typ], loc)
			}
			cands = append(cands, found...)
		}
	}
	cands = append(cands, saidCriticism(s, ms)...)
	cands = append(cands, saidAfterCriticism(s, ms)...)
	cands = append(cands, donations(s, ms)...)
	cands = append(cands, children(s, ms)...)
	cands = append(cands, includedMembers(s, ms)...)
	cands = append(cands, majorityIn(s, ms)...)
	if against := urgedAgainst(s, ms); len(against) > 0 {
		// "urged Muslims not to vote for Labour" is no denied support: it is a campaign against.
		cands = slices.DeleteFunc(cands, func(c candidate) bool {
			return c.typ == graph.Endorses && slices.ContainsFunc(against, func(a candidate) bool { return a.to.ent == c.to.ent })
		})
		cands = append(cands, against...)
	}
	// "the prime minister told …", resolved to Tony Blair: the text calls him so.
	for _, m := range ms {
		if m.post == nil {
			continue
		}
		typ := graph.HoldsOffice
		if m.post.kind == graph.KindParty {
			typ = graph.Leads
		}
		post := m
		post.ent, post.kind, post.post, post.note = m.post, m.post.kind, nil, ""
		at := m.span.Start - s.span.Start
		rule := "description"
		if m.pronoun {
			rule = "role-description" // "the former Labour leader said": the person named before
		}
		cands = append(cands, candidate{typ: typ, from: m, to: post, rule: rule, conf: 0.6,
			at: at, wording: review.Span{Start: at, End: m.span.End - s.span.Start}, described: true, ended: m.pastPost})
	}
	var out []review.Proposal
	seen := map[string]bool{}
	for _, c := range withCandidates(cands) {
		if !officeTypes[c.typ] {
			ok := true
			for _, end := range []*mention{&c.from, &c.to} {
				if end.ent.kind == graph.KindSeat {
					if h := holders[end.ent]; h != nil {
						end.ent = h
					} else {
						ok = false
					}
				}
			}
			if !ok {
				continue
			}
		}
		if !c.typ.Joins(c.from.ent.kind, c.to.ent.kind) {
			continue
		}
		status, saidBy, ok := claimStatus(s, ms, c)
		if !ok {
			continue
		}
		key := string(c.typ) + string(c.from.ent.name) + string(c.to.ent.name)
		if seen[key] {
			continue // the first (most specific) rule to read a pair wins
		}
		seen[key] = true
		p := review.Proposal{Type: c.typ, From: c.from.ent.name, To: c.to.ent.name, Role: c.role,
			Status: status, SaidBy: saidBy, Rule: c.rule, Excerpt: s.text, Span: s.span}
		conf := c.conf
		if status == graph.StatusAlleged {
			conf *= 0.85
		}
		if s.quoted[clampIndex(c.at, len(s.quoted))] {
			conf *= 0.8
		}
		p.Confidence = float64(int(conf*100+0.5)) / 100
		for _, m := range []mention{c.from, c.to} {
			if m.note != "" && !slices.Contains(p.Resolved, m.note) {
				p.Resolved = append(p.Resolved, m.note)
			}
		}
		datesOf(s.text, c, &p)
		if c.ended && p.ValidTo.IsZero() {
			// A past state ("former home secretary") had ended by the document's date: its end is no later.
			p.ValidTo = rd.published
		}
		out = append(out, p)
		if (c.typ == graph.Leads || c.typ == graph.MemberOf) && c.from.ent.kind == graph.KindActor && status != graph.StatusDenied && !c.ended {
			if parent := rd.lx.branchOf(c.to.ent); parent != nil && c.to.ent.kind == graph.KindParty {
				// "Scottish Labour leader Anas Sarwar" is a member of Labour too.
				m := p
				m.Type, m.To, m.Rule, m.Role = graph.MemberOf, parent.name, c.rule+"+branch", ""
				m.Confidence = float64(int(conf*90+0.5)) / 100
				out = append(out, m)
			}
		}
		if c.typ == graph.Founded && c.to.ent.kind == graph.KindParty && status != graph.StatusDenied {
			// A party's founder is its member.
			m := p
			m.Type, m.Rule, m.Role, m.Date = graph.MemberOf, c.rule+"+member", "founder", graph.FuzzyDate{}
			m.Confidence = float64(int(conf*90+0.5)) / 100
			out = append(out, m)
		}
	}
	return out
}

func clampIndex(i, n int) int {
	if i >= n {
		return n - 1
	}
	if i < 0 {
		return 0
	}
	return i
}

// apply reads the rule's wording at loc (offsets in the sentence).
func (r verbRule) apply(s *sentence, ms []mention, loc []int) []candidate {
	at, end := loc[0]+s.span.Start, loc[1]+s.span.Start
	var before, after []mention
	for _, m := range ms {
		if m.span.End <= at {
			before = append(before, m)
		} else if m.span.Start >= end {
			after = append(after, m)
		}
	}
	if len(before) == 0 || len(after) == 0 {
		return nil
	}
	// The nearest mention after the wording, close enough to be its object ("accused Y of", not a name
	// three clauses on).
	var objs []mention
	if m := objectPronoun.FindStringSubmatch(s.text[loc[1]:]); m != nil && !pronounApposition.MatchString(s.text[loc[1]:]) &&
		m[1] != "fellow" && m[1] != "former" {
		return nil // "a vote for his party": the object is no name ("his new party, Veritas" and "his fellow UKIP MEPs" are)
	}
	var words strings.Builder // the words between the verb and the name, other names left out
	from := end
	for _, m := range after {
		words.WriteString(" " + strings.ToLower(s.text[from-s.span.Start:m.span.Start-s.span.Start]))
		from = m.span.End
		between := words.String()
		if m.span.Start-end > 60 || clauseBreak(s, end, m.span.Start) || objectClause.MatchString(between) ||
			farObject(between, m.ent.kind == graph.KindSeat) {
			break
		}
		rest := s.text[m.span.End-s.span.Start:]
		if r.afterObject != nil {
			if r.afterObject.MatchString(rest) && r.fitsObject(m) {
				objs = append(objs, m)
			}
			break
		}
		if m.possessive {
			if ownParty.MatchString(rest) {
				continue // "accused by X's party, Y": the party
			}
			if (r.typ == graph.Criticised || r.typ == graph.Accused) && partyPlans.MatchString(rest) && r.fitsObject(m) {
				objs = append(objs, m) // "criticised Michael Howard's record": criticised him
			}
			break // "backed Mr Howard's stance": his stance, not him
		}
		if (m.ent.kind == graph.KindOrganisation || m.ent.kind == graph.KindParty) && bodyAfter.MatchString(rest) {
			break // "a member of the Commons intelligence and security committee": of the committee
		}
		if r.notAfterObject != nil && r.notAfterObject.MatchString(rest) ||
			modifierNoun.MatchString(rest) && !(m.ent.kind == graph.KindParty && (r.typ == graph.Criticised || r.typ == graph.Accused) && partyPlans.MatchString(rest)) {
			break // "backed Tory demands": the demands; but criticising "Tory promises" criticises the Tories
		}
		if n := roleHolder(s, after, m); n != nil {
			m = *n // "attack Tory leader Michael Howard": Michael Howard
		}
		if r.fitsObject(m) {
			objs = append(objs, m)
			// "X and Y": both
			if next := nextCoordinated(s, after, m); next != nil && r.fitsObject(*next) {
				objs = append(objs, *next)
			}
			break
		}
	}
	if len(objs) == 0 {
		return nil
	}
	// The subject: the nearest mention before the wording in the same clause, and those coordinated
	// with it ("Ajmal and Rabina were both previously working with …").
	var subjs []mention
	for i := len(before) - 1; i >= 0; i-- {
		m := before[i]
		if at-m.span.End > 120 || clauseBreak(s, m.span.End, at) {
			break
		}
		if m.possessive && r.typ != graph.Founded && !decisionTo.MatchString(s.text[m.span.End-s.span.Start:]) &&
			!eventAfter.MatchString(s.text[m.span.End-s.span.Start:]) {
			continue
		}
		if inRelativeClause(s, m, at) {
			continue // "X, who was expelled from Labour, accused Z": X accused Z
		}
		if m.ent.kind == graph.KindSeat && appositiveRole.MatchString(strings.ToLower(s.text[m.span.End-s.span.Start:])) {
			continue // "X, the Glasgow Kelvin MP, accused Z": X, whom the seat describes
		}
		if modifierNoun.MatchString(s.text[m.span.End-s.span.Start:]) && !(m.ent.kind == graph.KindParty && partySpokesman.MatchString(s.text[m.span.End-s.span.Start:])) {
			break // "Labour MPs have criticised": the MPs, not the party (but its spokesman speaks for it)
		}
		if lead := strings.ToLower(s.text[m.span.End-s.span.Start : at-s.span.Start]); subjectClause.MatchString(lead) && !sameSubject.MatchString(lead) {
			break // "warned the BBC that attacking X …": the BBC attacks no one ("a day after launching" keeps its subject)
		}
		if !r.fitsSubject(m, objs[0]) {
			continue // "X, the former Labour MP who founded Y": X founded it
		}
		subjs = append(subjs, m)
		for j := i - 1; j >= 0; j-- {
			gap := strings.TrimSpace(s.text[before[j].span.End-s.span.Start : before[i].span.Start-s.span.Start])
			if gap != "and" && gap != "&" && gap != "or" {
				break // a comma sets off an apposition as often as it joins a list
			}
			subjs = append(subjs, before[j])
			i = j
		}
		break
	}
	if r.passive && len(subjs) > 0 && nounBeforePassive.MatchString(strings.ToLower(s.text[subjs[0].span.End-s.span.Start:loc[0]])) {
		return nil // "welcomed a decision to throw out a law backed by Mr Bush": the law is backed, not she
	}
	var out []candidate
	for _, sub := range subjs {
		for _, obj := range objs {
			from, to := sub, obj
			if r.passive || r.reverse {
				from, to = obj, sub
			}
			out = append(out, candidate{typ: r.typ, from: from, to: to, rule: r.name, conf: r.conf, role: r.role,
				at: loc[0], wording: review.Span{Start: loc[0], End: loc[1]}, factual: r.factual})
		}
	}
	return out
}

// nounBeforePassive ends the words before a passive whose subject is a thing named there: "… a law backed
// by", "the plans criticised by".
var nounBeforePassive = regexp.MustCompile(`\b(?:a|an|the|this|that|these|those|its|his|her|their)\s+(?:[a-z-]+\s+)?[a-z-]+\s+$`)

func (r verbRule) fitsSubject(sub, obj mention) bool {
	if r.passive || r.reverse {
		return r.typ.Joins(obj.ent.kind, sub.ent.kind)
	}
	return r.typ.Joins(sub.ent.kind, obj.ent.kind)
}

func (r verbRule) fitsObject(m mention) bool {
	if len(r.objectKinds) > 0 && !slices.Contains(r.objectKinds, m.ent.kind) {
		return false
	}
	return true
}

var (
	// objectPronoun opens the words after a verb whose object is a pronoun's thing.
	objectPronoun     = regexp.MustCompile(`^\s+(?:his|her|their|its|my|our|your)\s+(\w+)`)
	pronounApposition = regexp.MustCompile(`^\s+(?:his|her|their)\s+(?:own\s+|new\s+|political\s+)*(?:party|group|organisation|movement|campaign|firm|company),?\s+(?:the\s+)?\p{Lu}`)
	// objectClause, between a verb and a name, puts the name in another clause: "supported the plans
	// when Mr Blunkett argued".
	objectClause = regexp.MustCompile(`\b(?:when|while|because|after|before|although|though|which|who|whom|whose|that|as|since|until|unless|where)\b`)
	// ownParty follows a possessive that stands for a party: "X's political party, Y".
	ownParty = regexp.MustCompile(`^(?:'s|’s)\s+(?:own\s+|political\s+|new\s+)*(?:party|group|organisation)\b`)
	// modifierNoun follows a name used as an adjective: "Tory demands", "SNP candidates", "BBC One show".
	modifierNoun = regexp.MustCompile(`^(?:\s+\p{Lu}\w+)??\s+(?i:demands?|plans?|proposals?|polic(?:y|ies)|stance|positions?|calls?|bids?|campaigns?|candidates?|government|manifesto|amendments?|motions?|ideas?|moves?|line|approach|views?|claims?|show|programme|series|column|board|team|inquiry|job|role|post|voters|supporters|members|councillors|mps|activists|figures|sources|officials|spokes(?:man|woman)|leadership|record|budget|pledges?|promises?|report|policy|tax|rebels?|benches|whips?|attempts?|journalists?|reporters?|correspondents?|editors?|writers?|columnists?|staff|aides?|advisers?|ministers?|frontbench(?:ers)?|backbench(?:ers)?|peers?|figures?|leaders|spin|insiders|high command|hq)\b`)
)

// farObject says whether the words between a verb and a name make the name something else than the
// verb's object: more than three words, or a preposition ("criticised the reported rivalry between the
// pair on GMTV's Sunday Programme").
func farObject(between string, seat bool) bool {
	if seat { // "contest the Derbyshire seat of Erewash", "candidate of Labour in the Poplar seat"
		between = seatLead.ReplaceAllString(between, " ")
	}
	between = bodyLead.ReplaceAllString(between, " ") // "sits on the executive of X"
	words := 0
	for _, w := range strings.Fields(between) {
		switch w = strings.Trim(w, ",\"'‘’“”"); w {
		case "", "the", "a", "an", "and", "&", "mr", "mrs", "ms", "dr", "sir", "lord", "lady", "fellow", "former":
			continue
		case "between", "on", "in", "at", "over", "about", "with", "of", "to", "for", "from", "by", "against", "into", "during", "under":
			return true
		}
		words++
	}
	return words > 3
}

var bodyLead = regexp.MustCompile(`\b(?:the\s+)?(?:board|executive|council|committee|panel|staff|leadership|ranks|front bench|frontbench|benches)\s+of\s+(?:the\s+)?$`)

var seatLead = regexp.MustCompile(`(?:\b(?:[a-z]+\s+)?(?:seat|constituency|ward|division) of|\b(?:in|for|at) (?:the\s+)?)\s*$`)

// roleHolder is the person a group mention's role introduces ("Tory leader Michael Howard", "Labour MP
// Oona King"), when m is such a group.
func roleHolder(s *sentence, ms []mention, m mention) *mention {
	if m.ent.kind != graph.KindParty && m.ent.kind != graph.KindOrganisation {
		return nil
	}
	for i := range ms {
		if ms[i].span.Start <= m.span.Start {
			continue
		}
		if ms[i].ent.kind != graph.KindActor {
			return nil
		}
		gap := strings.ToLower(strings.TrimSpace(s.text[m.span.End-s.span.Start : ms[i].span.Start-s.span.Start]))
		gap = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(gap, "'s"), "’s"))
		if gap != "" && memberRoles.MatchString(gap) {
			return &ms[i]
		}
		return nil
	}
	return nil
}

var (
	// subjectClause, between a subject and its verb, puts them in different clauses.
	subjectClause = regexp.MustCompile(`\b(?:that|when|while|because|after|before|although|though|since|until|unless|whether|if)\b`)
	// sameSubject ends the words before a participle that shares the sentence's subject.
	sameSubject = regexp.MustCompile(`\b(?:after|before|since|while|when|by|on|in|without)\s*$`)
	// bodyAfter follows a body's name that only qualifies another body: "the Commons … committee".
	bodyAfter = regexp.MustCompile(`^(?:'s|’s)?\s+(?:[a-z-]+\s+){0,4}(?:committee|group|panel|inquiry|commission|council|board|unit|team|office|department|branch|wing|executive)\b`)
)

// partyPlans follow a party whose plans, promises or record are criticised: the party is.
// partySpokesman follows a party whose spokesman speaks for it: "A Labour Party spokesman criticised".
var partySpokesman = regexp.MustCompile(`^\s+(?:party\s+)?spokes(?:man|woman|person)\b`)

var partyPlans = regexp.MustCompile(`^(?:'s|’s)?\s+(?:plans?|proposals?|polic(?:y|ies)|record|promises?|pledges?|manifesto|budget|spending plans|tax plans|figures|sums|costings|claims)\b`)

// eventAfter follows a possessive whose owner did what the noun names: "his appointment as chairman of",
// "Mr Kilroy-Silk's membership of UKIP".
var eventAfter = regexp.MustCompile(`^(?:'s|’s)?\s+(?:appointment|election|membership|selection|nomination)\s+(?:as|of|to|for)\b`)

// decisionTo follows a possessive subject whose act is stated: "X's decision to quit Y".
var decisionTo = regexp.MustCompile(`^(?:'s|’s)\s+(?:(?:decision|move|choice|resignation|defection)\s+to|(?:support|backing|endorsement)\s+(?:for|of))\b`)

// nextCoordinated is the mention joined to m by "and" or "&", if any.
func nextCoordinated(s *sentence, ms []mention, m mention) *mention {
	if m.pair != nil {
		other := m // "the two men": the other of the pair
		other.ent, other.pair = m.pair, nil
		other.note = strings.Replace(m.note, m.ent.display, m.pair.display, 1)
		return &other
	}
	for i := range ms {
		if ms[i].span.Start > m.span.End {
			gap := strings.TrimSpace(s.text[m.span.End-s.span.Start : ms[i].span.Start-s.span.Start])
			if gap == "and" || gap == "&" || gap == "," || coordinatedTitle.MatchString(gap) {
				return &ms[i]
			}
			return nil
		}
	}
	return nil
}

// coordinatedTitle joins two names when the second has a title: "Tony Blair and Mr Brown".
var coordinatedTitle = regexp.MustCompile(`^(?:and|&|,)\s+(?:Mr|Mrs|Ms|Miss|Dr|Sir|Lord|Lady|Baroness|Dame)\.?$`)

// clauseBreak says whether a semicolon, a colon or a dash between two offsets of the document separates
// clauses.
func clauseBreak(s *sentence, from, to int) bool {
	if from > to {
		from, to = to, from
	}
	gap := s.text[from-s.span.Start : to-s.span.Start]
	// A hashtag ends a post's clause: posts run their sentences together around them.
	return strings.ContainsAny(gap, ";:#") || strings.Contains(gap, " - ") || strings.Contains(gap, "—") ||
		strings.Contains(gap, " but ") || strings.Contains(gap, " while ") || strings.Contains(gap, " whereas ")
}

// inRelativeClause reports whether mention m stands in a relative clause that closes just before the
// wording at byte at: ", who was expelled from Labour last year, accused".
func inRelativeClause(s *sentence, m mention, at int) bool {
	lead := strings.TrimSpace(s.text[m.span.End-s.span.Start : at-s.span.Start])
	if !strings.HasSuffix(lead, ",") {
		return false
	}
	head := strings.ToLower(s.text[:m.span.Start-s.span.Start])
	i := strings.LastIndex(head, ",")
	return i >= 0 && relativeStart.MatchString(head[i+1:])
}

var (
	relativeStart = regexp.MustCompile(`^\s*(?:who|which|whose|whom)\b`)
	// appositiveRole follows a seat that describes a person named before it: "X, the Glasgow Kelvin MP,".
	appositiveRole = regexp.MustCompile(`^\s+(?:mp|msp|mep|am|member|candidate|councillor)\s*,`)
)

// Role words between a group and a person: "Labour MP X", "UKIP leader X".
var (
	memberRoles = regexp.MustCompile(`^(?:(?:the|a|an|former|ex-|ex|then|new|veteran|local|senior|leading|prominent|rebel|deputy|shadow|independent|outgoing|incoming|acting|vocal|controversial|general|assistant|party|chief|junior|backbench|fellow|councillor|[a-z]+-?[a-z]+)\s+){0,3}(mps?|meps?|msps?|ams?|councillors?|cllrs?|candidates?|activists?|members?|peers?|politicians?|spokes(?:man|woman|person)|ministers?|mayors?|backbenchers?|figures?|chairman|chairwoman|chair|leader|treasurer|secretary|founder|rebels?|whips?|agent|official|officer|supporters?|campaigners?|colleague|donor|vice-chairman|deputy leader|president|defectors?|co-chairman|journalist|editor|correspondent|reporter|columnist|adviser|advisor|researcher|partner|director|director general|director-general|general secretary|chief executive|strategists?|co-?ordinator|organiser|organizer|aides?|economist|dj|presenter|host)$`)
	joinWords   = regexp.MustCompile(`\b(?:and|or|but|with|of|to|from|on|at|by|against|over)\b`)
	roleOf      = regexp.MustCompile(`^,\s*(?:the\s+|a\s+|an\s+)?(?:(?:former|deputy|executive|senior|joint|vice|managing|general)\s+)?((?:chief executive|general secretary|leader|chairman|chairwoman|chair|president|head|director|founder|partner|member|spokesman|spokeswoman|secretary|treasurer|officer|official|adviser|professor|lecturer|fellow|researcher|editor|correspondent|journalist)?)\s*(?:of|at|for|from)(?:\s+the)?(?:\s+(?:[a-z-]+\s+){0,3}(?:group|organisation|organization|charity|union|campaign|body|think-tank|think tank|firm|company|association|coalition))?$`)
	leaderRoles = regexp.MustCompile(`(?:^|\s)(?:leader|chairman|chairwoman|chair|president|head|co-chairman|co-chair|chief|director general|director-general|general secretary|chief executive)$`)
	familyWords = regexp.MustCompile(`\b(ex-husband|ex-wife|husband|wife|son|daughter|brother|sister|father|mother|cousin|nephew|niece|uncle|aunt|widow|widower|brother-in-law|sister-in-law|father-in-law|son-in-law|grandson|granddaughter|grandfather|grandmother|stepson|stepdaughter|former wife|former husband|estranged wife|estranged husband)\b`)
)

// modifierRelations reads relations from how names are put together, without a verb: "Labour MP X",
// "Mid-Bedfordshire MP X", "Home Secretary X", "UKIP leader X", "X, the Mayor of Tower Hamlets",
// "Labour's X", "X's wife, Y", "X's new party, Veritas".
func (rd *reading) modifierRelations(s *sentence, ms []mention) []candidate {
	var out []candidate
	add := func(t graph.RelationType, from, to mention, rule string, conf float64, role string) {
		lo, hi := min(from.span.Start, to.span.Start), max(from.span.End, to.span.End)
		ended := pastRole.MatchString(strings.ToLower(s.text[clampIndex(lo-s.span.Start-8, len(s.text)):clampIndex(hi-s.span.Start, len(s.text))])) ||
			pastRole.MatchString(strings.ToLower(role))
		if ended && stateTypes[t] {
			// One "former", first: "former Labour mp", not "Labour former mp".
			role = strings.TrimSpace("former " + strings.TrimSpace(pastWord.ReplaceAllString(role, " ")))
		}
		out = append(out, candidate{typ: t, from: from, to: to, rule: rule, conf: conf, role: role,
			at: lo - s.span.Start, wording: review.Span{Start: lo - s.span.Start, End: hi - s.span.Start},
			described: true, ended: ended && stateTypes[t]})
	}
	for i, m := range ms {
		for _, w := range m.ent.within {
			rd.use(w, w.display)
			wm := mention{span: m.span, text: w.display, kind: w.kind, ent: w}
			if m.ent.kind == graph.KindSeat {
				// "Labour whip Kim Leadbeater": the whip's holder is a member of the party.
				if i+1 < len(ms) && ms[i+1].ent.kind == graph.KindActor && strings.TrimSpace(s.text[m.span.End-s.span.Start:ms[i+1].span.Start-s.span.Start]) == "" {
					add(graph.MemberOf, ms[i+1], wm, "party-office", 0.75, m.ent.display)
				}
				continue
			}
			add(graph.PartOf, m, wm, "local-group", 0.7, "")
		}
		if m.ent.kind == graph.KindOrganisation || m.ent.kind == graph.KindParty {
			if p := rd.lx.branchOf(m.ent); p != nil {
				add(graph.PartOf, m, mention{span: m.span, text: p.display, kind: p.kind, ent: p}, "party-branch", 0.65, "")
			}
		}
	}
	for i := 0; i+1 < len(ms); i++ {
		a, b := ms[i], ms[i+1]
		gapRaw := s.text[a.span.End-s.span.Start : b.span.Start-s.span.Start]
		partOfParty := false
		if i > 0 && ms[i-1].ent.kind == graph.KindParty && a.ent.kind == graph.KindOrganisation &&
			strings.TrimSpace(s.text[ms[i-1].span.End-s.span.Start:a.span.Start-s.span.Start]) == "" {
			// "Scottish National Party Holyrood leader X": the party's, in Holyrood.
			gapRaw = strings.TrimSpace(a.text + " " + gapRaw)
			a = ms[i-1]
			gapRaw = " " + gapRaw[len(ms[i].text):]
			partOfParty = true
		}
		formerly := formerBefore.MatchString(s.text[:a.span.Start-s.span.Start])
		gap := strings.TrimSpace(strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(gapRaw, "'s"), "’s")))
		ak, bk := a.ent.kind, b.ent.kind
		if bk == graph.KindActor {
			// "The Lib Dem candidate for this seat, Rabina Khan": the role before the name.
			gap = strings.TrimSpace(strings.TrimSuffix(gap, ","))
			gap = strings.TrimSpace(titleAtEnd.ReplaceAllString(gap, ""))
			gap = strings.TrimSpace(thisSeat.ReplaceAllString(gap, ""))
		}
		switch {
		case bk == graph.KindActor && (ak == graph.KindParty || ak == graph.KindOrganisation) && memberRoles.MatchString(gap) &&
			!joinWords.MatchString(gap) && // "an attack on Labour's record and party leader Michael Howard"
			// "Shadow Treasury chief secretary X" shadows the Treasury from the opposition: no member of it.
			!strings.HasSuffix(strings.ToLower(strings.TrimSpace(s.text[:a.span.Start-s.span.Start])), "shadow") &&
			(!strings.HasSuffix(strings.TrimSpace(gapRaw), ",") || sentenceStart.MatchString(s.text[:a.span.Start-s.span.Start])):
			// With a comma, only as the sentence's subject: "The Lib Dem candidate for this seat, Rabina Khan"
			role := memberRoles.FindStringSubmatch(gap)[1]
			// "Lib Dem parliamentary chairman X" leads part of the party only: a member.
			// A former leader led: the claim is the leadership, its role says "former" (its end is not known).
			leads := wholeLeader.MatchString(gap) && !partOfParty
			if formerly {
				gap = "former " + gap
			}
			// A leader's membership goes without saying: the claim is the leadership.
			if leads {
				add(graph.Leads, b, a, "group-leader-name", 0.8, gap)
			} else if strings.HasPrefix(role, "defector") {
				add(graph.ResignedFrom, b, a, "group-defector-name", 0.75, "")
			} else if !strings.HasPrefix(role, "supporter") && !strings.HasPrefix(role, "colleague") && !strings.HasPrefix(role, "donor") {
				add(graph.MemberOf, b, a, "group-role-name", 0.8, strings.TrimSpace(a.text+" "+gap))
			}
		case bk == graph.KindActor && ak == graph.KindParty && gap == "" && (b.title != "" || rd.lx.given[strings.ToLower(strings.Fields(b.text)[0])]) &&
			(a.possessive || b.title != "" || strings.TrimSpace(gapRaw) == "" && !rd.posts):
			// "Labour's Lorna Fitzsimons", "Lib Dem Sir Archy Kirkwood"
			add(graph.MemberOf, b, a, "party-name", 0.65, "")
		case bk == graph.KindActor && ak == graph.KindSeat && a.ent.constituency || bk == graph.KindActor && ak == graph.KindSeat && seatRole.MatchString(gap):
			if memberOfSeat.MatchString(gap) {
				add(graph.HoldsOffice, b, a, "seat-mp-name", 0.8, strings.ToUpper(gap))
			} else if strings.HasSuffix(gap, "candidate") {
				add(graph.CandidateFor, b, a, "seat-candidate-name", 0.75, "")
			}
		case bk == graph.KindActor && ak == graph.KindSeat && (gap == "" || gap == "the" || gap == "former") && !a.ent.constituency:
			add(graph.HoldsOffice, b, a, "office-name", 0.8, a.text)
		case ak == graph.KindActor && bk == graph.KindSeat && !b.ent.constituency && officeApposition.MatchString(gap) && strings.HasPrefix(strings.TrimSpace(gapRaw), ",") &&
			!(i+2 < len(ms) && ms[i+2].ent.kind == graph.KindActor && strings.TrimSpace(s.text[b.span.End-s.span.Start:ms[i+2].span.Start-s.span.Start]) == ""):
			// "X, the Mayor of Tower Hamlets" — but not "X, London Mayor Sadiq Khan"
			add(graph.HoldsOffice, a, b, "name-office", 0.75, b.text)
		case ak == graph.KindActor && (bk == graph.KindParty || bk == graph.KindOrganisation) && (strings.HasPrefix(strings.TrimSpace(gapRaw), ",") || copula.MatchString(gap)):
			// "X, the former Labour MP" / "X, UKIP leader"
			// The role after the group: its first one to three words ("MP", "election strategist").
			rest := strings.ToLower(s.text[b.span.End-s.span.Start:])
			role := ""
			if m := roleAfterGroup.FindStringSubmatch(rest); m != nil {
				words := strings.Fields(m[1])
				for n := len(words); n >= 1; n-- {
					if memberRoles.MatchString(strings.Join(words[:n], " ")) {
						role = strings.Join(words[:n], " ")
						break
					}
				}
			}
			if nameToGroup.MatchString(strings.TrimSpace(strings.TrimPrefix(gap, ","))) && memberRoles.MatchString(role) {
				if after := rest[strings.Index(rest, role)+len(role):]; leaderRoles.MatchString(role) && !strings.HasPrefix(role, "deputy") && !partLeader.MatchString(after) &&
					!leaderOfOther.MatchString(after) { // "Labour leader of Tower Hamlets council" leads the council's group
					add(graph.Leads, a, b, "name-group-leader", 0.75, role)
				} else {
					add(graph.MemberOf, a, b, "name-group-role", 0.75, strings.TrimSpace(b.text+" "+role))
				}
				// "X, the Tory candidate in Y"
				if strings.HasSuffix(role, "candidate") && i+2 < len(ms) && ms[i+2].ent.kind == graph.KindSeat &&
					candidateIn.MatchString(strings.ToLower(s.text[b.span.End-s.span.Start:ms[i+2].span.Start-s.span.Start])) {
					add(graph.CandidateFor, a, ms[i+2], "name-group-candidate-seat", 0.75, "")
				}
			}
		}
		// "UKIP's disciplinary committee", "the Bank of England's Monetary Policy Committee": part of the body.
		if (ak == graph.KindOrganisation || ak == graph.KindParty) && bk == graph.KindOrganisation &&
			(b.partOf || a.possessive && gap == "" && strings.HasSuffix(strings.ToLower(b.ent.display), "committee")) {
			add(graph.PartOf, b, a, "body-committee", 0.75, "")
		}
		// "Azmat Begg, father of Moazzam"
		if ak == graph.KindActor && bk == graph.KindActor {
			if m := familyOf.FindStringSubmatch(gap); m != nil {
				add(graph.Family, a, b, "name-family-of", 0.8, m[1])
			}
		}
		// "John Curtice, of the University of Strathclyde"; "Peter Misselbrook, executive partner of Tods
		// Murray"; "Jan Berry, chairman of the Police Federation"
		// "Ed Balls, ex-chief economic adviser to the Treasury"
		if ak == graph.KindActor && (bk == graph.KindOrganisation || bk == graph.KindParty) {
			if m := adviserTo.FindStringSubmatch(gap); m != nil {
				add(graph.MemberOf, a, b, "name-adviser-to", 0.7, strings.TrimSpace(strings.TrimPrefix(m[0], ",")))
			}
		}
		if ak == graph.KindActor && (bk == graph.KindOrganisation || bk == graph.KindParty) {
			if m := roleOf.FindStringSubmatch(gap); m != nil {
				switch role := m[1]; {
				case role == "":
					add(graph.MemberOf, a, b, "name-of-group", 0.7, "")
				case headRole.MatchString(role) && !strings.Contains(m[0], "former") && !partAfter.MatchString(s.text[b.span.End-s.span.Start:]):
					add(graph.Leads, a, b, "name-role-of-group", 0.75, role)
				default:
					add(graph.MemberOf, a, b, "name-role-of-group", 0.7, role)
				}
			}
		}
		// "Mr Brown's former adviser Ed Balls"; "Sir Bernard Ingham, Margaret Thatcher's former press secretary"
		if ak == graph.KindActor && bk == graph.KindActor && a.possessive && formerAide.MatchString(gap) {
			add(graph.FormerlyWorkedWith, b, a, "former-aide", 0.75, formerAide.FindStringSubmatch(gap)[1])
		}
		if ak == graph.KindActor && bk == graph.KindActor && strings.TrimSpace(gapRaw) == "," {
			if rest := strings.ToLower(s.text[b.span.End-s.span.Start:]); (b.possessive || strings.HasPrefix(rest, "'s") || strings.HasPrefix(rest, "’s")) && formerAideAfter.MatchString(rest) {
				add(graph.FormerlyWorkedWith, a, b, "former-aide", 0.75, formerAideAfter.FindStringSubmatch(rest)[1])
			}
		}
		// Family: "X's wife, Y" / "X's ex-husband, Y" / "Y, X's wife"
		if ak == graph.KindActor && bk == graph.KindActor {
			if a.possessive {
				if f := familyWords.FindString(gap); f != "" && len(gap) <= len(f)+12 {
					add(graph.Family, a, b, "family", 0.8, f)
				}
			}
		}
		// "his East Midlands constituents": the seat is his.
		if ak == graph.KindActor && a.possessive && bk == graph.KindSeat && gap == "" && constituentsAfter.MatchString(s.text[b.span.End-s.span.Start:]) {
			add(graph.HoldsOffice, a, b, "constituents", 0.7, "")
		}
		// "X's new party, Veritas" / "Robert Kilroy-Silk's new political party"
		if ak == graph.KindActor && a.possessive && (bk == graph.KindParty || bk == graph.KindOrganisation) &&
			newParty.MatchString(gap) &&
			strings.Contains(gap, "new") {
			add(graph.Founded, a, b, "new-party", 0.7, "")
		}
	}
	// "Oona King (Labour, Bethnal Green and Bow)": a member's party and seat in brackets.
	for i := 0; i+1 < len(ms); i++ {
		a, b := ms[i], ms[i+1]
		if a.ent.kind != graph.KindActor || b.ent.kind != graph.KindParty ||
			strings.TrimSpace(s.text[a.span.End-s.span.Start:b.span.Start-s.span.Start]) != "(" {
			continue
		}
		rest := s.text[b.span.End-s.span.Start:]
		if strings.HasPrefix(strings.TrimSpace(rest), ")") {
			add(graph.MemberOf, a, b, "name-party-brackets", 0.8, "")
			continue
		}
		if i+2 < len(ms) && ms[i+2].ent.kind == graph.KindSeat &&
			strings.TrimSpace(s.text[b.span.End-s.span.Start:ms[i+2].span.Start-s.span.Start]) == "," &&
			strings.HasPrefix(strings.TrimSpace(s.text[ms[i+2].span.End-s.span.Start:]), ")") {
			add(graph.MemberOf, a, b, "name-party-brackets", 0.8, "")
			add(graph.HoldsOffice, a, ms[i+2], "name-party-brackets", 0.75, "")
		}
	}
	// "Tory shadow chancellor Oliver Letwin": a party's office holder is its member.
	for i := 0; i+2 < len(ms); i++ {
		a, b, c := ms[i], ms[i+1], ms[i+2]
		if a.ent.kind == graph.KindParty && b.ent.kind == graph.KindSeat && !b.ent.constituency && c.ent.kind == graph.KindActor &&
			strings.TrimSpace(s.text[a.span.End-s.span.Start:b.span.Start-s.span.Start]) == "" &&
			strings.TrimSpace(s.text[b.span.End-s.span.Start:c.span.Start-s.span.Start]) == "" {
			add(graph.MemberOf, c, a, "group-office-name", 0.75, b.text)
		}
	}
	// "Labour candidate for Bethnal Green and Bow seat, Rushnara Ali"
	for i := 0; i+2 < len(ms); i++ {
		a, b, c := ms[i], ms[i+1], ms[i+2]
		if a.ent.kind != graph.KindParty || b.ent.kind != graph.KindSeat || c.ent.kind != graph.KindActor {
			continue
		}
		g1 := strings.ToLower(strings.TrimSpace(s.text[a.span.End-s.span.Start : b.span.Start-s.span.Start]))
		g2 := strings.ToLower(strings.TrimSpace(s.text[b.span.End-s.span.Start : c.span.Start-s.span.Start]))
		if roleForSeat.MatchString(g1) && seatThenName.MatchString(g2) {
			add(graph.MemberOf, c, a, "group-role-seat-name", 0.8, strings.TrimSpace(a.text+" "+strings.Fields(g1)[0]))
			if strings.HasPrefix(g1, "candidate") {
				add(graph.CandidateFor, c, b, "group-role-seat-name", 0.8, "")
			} else {
				add(graph.HoldsOffice, c, b, "group-role-seat-name", 0.8, strings.ToUpper(strings.Fields(g1)[0]))
			}
		}
	}
	// "X's (own|new) party" followed by a party name later: "Lutfur Rahman's political party, Aspire"
	for i := 0; i+1 < len(ms); i++ {
		a, b := ms[i], ms[i+1]
		if a.ent.kind != graph.KindActor || !a.possessive || b.ent.kind != graph.KindParty {
			continue
		}
		gap := strings.ToLower(strings.TrimSpace(s.text[a.span.End-s.span.Start : b.span.Start-s.span.Start]))
		gap = strings.TrimPrefix(strings.TrimPrefix(gap, "'s"), "’s")
		if ownPartyGap.MatchString(gap) {
			add(graph.MemberOf, a, b, "own-party", 0.75, "")
		}
	}
	return out
}

var (
	// donatedTo: "X gave £500,000 to Labour", "X donated £1m to the Tories".
	donatedTo = regexp.MustCompile(`\b(?:gave|donated|gives|donates|has given|had given|lent|loaned|bequeathed)\s+(?:[^.;]{0,40}?)?£[\d.,]+\s*(?:m|bn|k|million|billion)?\s+to\s+(?:the\s+)?$`)
	// donationFrom: "a donation to the Conservatives … from X", "donations … for the Tories from X".
	donationFrom = regexp.MustCompile(`\b(?:donations?|gifts?|bequest|loans?)\b[^.;]{0,80}?\bfrom\s+(?:the\s+)?(?:[a-z-]+\s+){0,4}$`)
	// donorIs: "the Liberal Democrats' largest donor was X", "which lost its main donor X".
	donorIs = regexp.MustCompile(`\b(?:largest|biggest|main|major|leading|single largest|top)\s+(?:individual\s+|corporate\s+)?donor\s+(?:was\s+|is\s+|,\s*)?(?:the\s+)?$`)
)

// donations reads who funds a party: "X gave £500,000 to Labour", "a bequest from X" with the party it
// went to named in the sentence, "Labour's largest donor was X". Money given is support: ENDORSES.
// constituentsAfter follows a seat named as someone's: "his East Midlands constituents".
var constituentsAfter = regexp.MustCompile(`^\s+constituents\b`)

// gaveParty and sumAfter surround a party given money: "gave the party a sum of £500,000".
var (
	gaveParty = regexp.MustCompile(`\b(?:gave|donated|gives|has given|had given|lent)\s+(?:the\s+)?$`)
	sumAfter  = regexp.MustCompile(`^(?:'s|’s)?\s+(?:a sum of |a total of |some |about |almost |nearly |more than |over |a further |another )?£[\d.,]+`)
)

func donations(s *sentence, ms []mention) []candidate {
	var out []candidate
	add := func(donor, party mention, at int) {
		out = append(out, candidate{typ: graph.Endorses, from: donor, to: party, rule: "donation", conf: 0.7,
			at: at, wording: review.Span{Start: at, End: at}, factual: true})
	}
	nearestParty := func(m mention) *mention {
		var best *mention
		for i := range ms {
			p := &ms[i]
			if p.ent.kind != graph.KindParty || p.ent == m.ent {
				continue
			}
			if best == nil || abs(p.span.Start-m.span.Start) < abs(best.span.Start-m.span.Start) {
				best = p
			}
		}
		return best
	}
	for i := range ms {
		m := ms[i]
		if m.ent.kind != graph.KindActor && m.ent.kind != graph.KindOrganisation {
			continue
		}
		before := strings.ToLower(s.text[:m.span.Start-s.span.Start])
		switch {
		case donationFrom.MatchString(before):
			if p := nearestParty(m); p != nil && p.span.Start < m.span.Start {
				add(m, *p, m.span.Start-s.span.Start)
			}
		case donorIs.MatchString(before):
			// The party whose donor: the last one named before.
			var p *mention
			for j := range ms {
				if ms[j].ent.kind == graph.KindParty && ms[j].span.End <= m.span.Start {
					p = &ms[j]
				}
			}
			if p != nil {
				add(m, *p, m.span.Start-s.span.Start)
			}
		}
		// "X … gave £500,000 to Labour": the party right after.
		for j := i + 1; j < len(ms); j++ {
			p := ms[j]
			if p.ent.kind != graph.KindParty {
				continue
			}
			between := strings.ToLower(s.text[m.span.End-s.span.Start : p.span.Start-s.span.Start])
			if donatedTo.MatchString(between) ||
				gaveParty.MatchString(between) && sumAfter.MatchString(s.text[p.span.End-s.span.Start:]) { // "who gave the party a sum of £500,000"
				add(m, p, m.span.End-s.span.Start)
			}
			break
		}
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// committeeChair opens a sentence on a committee's chair named next: "Committee chairman X said".
var committeeChair = regexp.MustCompile(`^\s*(?:The\s+)?[Cc]ommittee(?:'s|’s)?\s+(chairman|chairwoman|chair|convener|convenor)\s+(?:(?:Mr|Mrs|Ms|Dr|Sir|Lord|Lady|Baroness)\.?\s+)?`)

// bodyHead opens a sentence on a body's head by role alone: "General secretary Brendan Barber warned",
// "Chief executive John Beaumont was paid".
var bodyHead = regexp.MustCompile(`^\s*(?:Its\s+|The\s+)?(?:[Gg]eneral secretary|[Cc]hief executive|[Dd]irector[- ]general|[Dd]irector|[Cc]hairman|[Cc]hairwoman|[Pp]resident)\s+(?:(?:Mr|Mrs|Ms|Dr|Sir|Lord|Lady|Baroness|Professor)\.?\s+)?$`)

// claimStatus reads how the sentence puts a candidate: DENIED where the wording denies it, ALLEGED where
// it reports hearsay, an allegation or what someone said, REPORTED where the outlet states it. ok is false
// where the sentence does not state it at all: a hypothetical, a refusal to say.
func claimStatus(s *sentence, ms []mention, c candidate) (status graph.ClaimStatus, saidBy graph.EntityName, ok bool) {
	first := c.from.span.Start
	if c.to.span.Start < first {
		first = c.to.span.Start
	}
	// The words from the clause's start (or the subject) up to the wording's end.
	clauseStart := 0
	for i := c.at - 1; i >= 0; i-- {
		if strings.ContainsRune(";:", rune(s.text[i])) {
			clauseStart = i + 1
			break
		}
	}
	wEnd := c.wording.End
	if wEnd > len(s.text) {
		wEnd = len(s.text)
	}
	subjStart := first - s.span.Start
	if subjStart < clauseStart || c.from.pronoun || c.to.pronoun {
		// A pronoun stands in a clause about its person: "X dismissed reports he supports Y" is X's denial.
		subjStart = clauseStart
	}
	// Names are no wording: "Theresa May" is no "may", "Will Hutton" no "will".
	masked := []byte(s.text)
	for _, m := range ms {
		for i := max(0, m.span.Start-s.span.Start); i < min(len(masked), m.span.End-s.span.Start); i++ {
			masked[i] = 'X'
		}
	}
	lead := strings.ToLower(string(masked[subjStart:max(subjStart, min(c.at, len(s.text)))]))
	wording := strings.ToLower(string(masked[clampIndex(c.at, len(s.text)):wEnd]))
	full := lead + " " + wording
	if c.spoken {
		return graph.StatusReported, "", true
	}
	// How a name is described holds whatever the sentence says around it ("a complaint to UKIP's
	// disciplinary committee", "Labour MP X could resign"): the outlet's, but for a deputy's post.
	if c.described && !s.quoted[clampIndex(c.at, len(s.quoted))] {
		before := strings.ToLower(s.text[:clampIndex(c.at, len(s.text))])
		if strings.HasSuffix(before, "deputy ") || strings.HasSuffix(before, "deputy party ") {
			return "", "", false
		}
		return graph.StatusReported, "", true
	}
	if !c.factual && (hypothetical.MatchString(full) && c.typ != graph.CandidateFor || wish.MatchString(full)) {
		return "", "", false
	}
	// "called on X to quit", "challenged X to stand down", "made him deputy leader": not what happened.
	before := strings.ToLower(s.text[:clampIndex(c.at, len(s.text))])
	if strings.HasSuffix(before, "to ") && !(c.typ == graph.CandidateFor && dueTo.MatchString(before)) &&
		!actTo.MatchString(before) ||
		strings.HasSuffix(before, "deputy ") || strings.HasSuffix(before, "deputy party ") {
		return "", "", false
	}
	if ms := negation.FindAllStringIndex(full, -1); len(ms) > 1 {
		return "", "", false // "did not deny backing": neither said nor denied
	}
	if m := negation.FindStringIndex(full); m != nil {
		if nonCommittal.MatchString(full[m[1]:]) && !strings.Contains(full[m[0]:m[1]], "den") {
			return "", "", false // "did not disclose", "refused to confirm": not stated either way
		}
		return graph.StatusDenied, "", true
	}
	prefix := strings.ToLower(s.text[:max(0, min(c.at, len(s.text)))])
	if accusedOf.MatchString(prefix) {
		return graph.StatusAlleged, "", true // "has been accused of criticising X": said by others
	}
	if c.described && !s.quoted[clampIndex(c.at, len(s.quoted))] {
		// "Mr Blair said the former home secretary David Blunkett would …": the description is the outlet's.
		return graph.StatusReported, "", true
	}
	if hearsay.MatchString(prefix) || hearsay.MatchString(wording) {
		// Who said it: a person named before a speech verb that precedes the subject.
		if loc := speechVerb.FindStringIndex(prefix); loc != nil {
			for _, m := range ms {
				if m.ent.kind == graph.KindActor && m.span.End-s.span.Start <= loc[0] && loc[0]-(m.span.End-s.span.Start) < 40 {
					saidBy = m.ent.name
				}
			}
		}
		if c.typ == graph.Accused && !hearsay.MatchString(prefix) {
			return graph.StatusReported, saidBy, true // "X alleged that …": an accusation made is reported as made
		}
		return graph.StatusAlleged, saidBy, true
	}
	if s.quoted[clampIndex(c.at, len(s.quoted))] {
		return graph.StatusAlleged, "", true
	}
	return graph.StatusReported, "", true
}

// accusedOf ends the words before what someone is accused of doing.
var accusedOf = regexp.MustCompile(`\b(?:been|being|is|was|were|are|stands?|stood)\s+accused\s+of\s+$`)

var (
	fromTo = regexp.MustCompile(`\bfrom (1[89]\d\d|20\d\d) (?:to|until|till|-|–) (1[89]\d\d|20\d\d)\b`)
	since  = regexp.MustCompile(`\bsince (1[89]\d\d|20\d\d)\b`)
	inYear = regexp.MustCompile(`\b(?:in|of|during|from) (1[89]\d\d|20\d\d)\b`)
)

// stateTypes hold over time; the rest are events.
var stateTypes = map[graph.RelationType]bool{graph.MemberOf: true, graph.HoldsOffice: true, graph.Leads: true,
	graph.FormerlyWorkedWith: true, graph.Family: true, graph.PartOf: true}

// datesOf reads the dates a sentence states: "from 1983 to 1992" and "since 1997" bound a state; a single
// "in 2010" dates an event.
func datesOf(text string, c candidate, p *review.Proposal) {
	year := func(s string) graph.FuzzyDate {
		y, _ := strconv.Atoi(s)
		return graph.FuzzyDate{Year: y}
	}
	if stateTypes[c.typ] {
		if m := fromTo.FindStringSubmatch(text); m != nil {
			p.ValidFrom, p.ValidTo = year(m[1]), year(m[2])
		} else if m := since.FindStringSubmatch(text); m != nil {
			p.ValidFrom = year(m[1])
		}
		return
	}
	if ms := inYear.FindAllStringSubmatch(text, -1); len(ms) == 1 {
		p.Date = year(ms[0][1])
	}
}

// Patterns of the wording, compiled once.
var (
	// formerBefore ends the words before a group that make its role a past one.
	formerBefore = regexp.MustCompile(`(?i)(?:\bex-|\bformer )$`)
	// pastRole is a description that makes a state a past one: "former home secretary", "ex-Tory MP".
	pastRole = regexp.MustCompile(`(?:^|[^a-z])(?:former|ex)(?:\s|-)`)
	// pastWord is the word of a role that makes it past.
	pastWord = regexp.MustCompile(`(?:^|\s)(?:former|ex-|ex)(?:\s|$)`)
	// partLeader follows a leader's role that leads a part of the group only: "Tory leader in the Lords".
	partLeader = regexp.MustCompile(`(?i)^\s*(?:in|at|on)\s+(?:the\s+)?(?:lords|commons|house|assembly|senedd|holyrood|parliament|european parliament|scottish parliament|welsh assembly|london assembly|scotland|wales|northern ireland|london|westminster|brussels|strasbourg|council|senate|group|city)\b`)
	// titleAtEnd is a title ending the words between a role and a name.
	titleAtEnd = regexp.MustCompile(`(?:\s|^)(?:dr|mr|mrs|ms|miss|sir|dame|lord|lady|baroness|professor|prof|cllr|councillor|rev)\.?$`)
	// thisSeat ends a role "for this seat".
	thisSeat = regexp.MustCompile(`\s+(?:for|in) (?:this|the|that) (?:seat|constituency|ward)$`)
	// sentenceStart is what may stand before a sentence's subject.
	sentenceStart = regexp.MustCompile(`^(?i:the\s+)?$`)
	// wholeLeader is a role that leads a whole group.
	wholeLeader = regexp.MustCompile(`^(?:the\s+|party\s+|former\s+)?(?:leader|chairman|chairwoman|chair|president|head|co-chairman|co-chair|chief|director general|director-general|general secretary|chief executive)$`)
	// seatRole is a role between a seat and its holder.
	seatRole = regexp.MustCompile(`^(?:the\s+)?(?:former\s+)?(?:mp|mep|msp|am|member|councillor)s?$`)
	// memberOfSeat ends a role that holds a seat.
	memberOfSeat = regexp.MustCompile(`(?:^|\s)(?:mp|mep|msp|am|member)$`)
	// officeApposition stands between a name and the office after it.
	officeApposition = regexp.MustCompile(`^,?\s*(?:the|a)?\s*(?:current|former|then|new)?$`)
	// copula joins a name to what it is.
	copula = regexp.MustCompile(`^(?:was|is|became|has been|had been)\b`)
	// roleAfterGroup is up to three words after a group.
	roleAfterGroup = regexp.MustCompile(`^(?:'s|’s|'|’)?\s+([a-z-]+(?:\s+[a-z-]+){0,2})`)
	// leaderOfOther follows a party's leader's role that leads something else: "Labour leader of the council".
	leaderOfOther = regexp.MustCompile(`^\s+(?:of|on)\s`)
	// nameToGroup stands between a name and the group whose role it has.
	nameToGroup = regexp.MustCompile(`^(?:(?:who\s+)?(?:was|is|became|has been|had been)(?:\s+now)?\s*)?(?:the|a|an)?\s*(?:former|then|current|veteran|senior|prospective|new|leading|key|senior|local)?$`)
	// candidateIn stands between a group and a seat: "the Tory candidate in".
	candidateIn = regexp.MustCompile(`^(?:'s|’s)?\s+(?:[a-z-]+\s+){0,2}candidate\s+(?:for|in)\s+(?:the\s+)?$`)
	// familyOf stands between two people: ", father of".
	// formerAide is a past post at someone's side: "'s former adviser", "'s former press secretary".
	formerAide      = regexp.MustCompile(`^(?:(?:'s|’s)\s+)?(?:former|ex-|one-time)\s*((?:chief\s+|special\s+|economic\s+|political\s+|press\s+|personal\s+|senior\s+)?(?:advis[eo]r|aide|secretary|spokes(?:man|woman)|deputy|assistant|researcher|speechwriter|chief of staff|right-hand man))\s*,?$`)
	formerAideAfter = regexp.MustCompile(`^\s*(?:(?:'s|’s)\s+)?(?:former|ex-|one-time)\s*((?:chief\s+|special\s+|economic\s+|political\s+|press\s+|personal\s+|senior\s+)?(?:advis[eo]r|aide|secretary|spokes(?:man|woman)|deputy|assistant|researcher|speechwriter|chief of staff|right-hand man))\b`)
	// adviserTo stands between a person and the body they advise: ", ex-chief economic adviser to the".
	adviserTo = regexp.MustCompile(`^,\s*(?:the\s+|a\s+|an\s+)?(?:ex-|former\s+)?(?:[a-z]+\s+){0,2}(?:adviser|advisor|aide|consultant)\s+to(?:\s+the)?$`)
	// partAfter follows a group named as the whole a part belongs to: "leader of the Labour group on
	// Newham Council" leads the group, not Labour.
	partAfter = regexp.MustCompile(`^\s+(?:group|groups|branch|wing|section|councillors|caucus|delegation|members)\b`)
	familyOf  = regexp.MustCompile(`^[,\-–—]\s*(?:the\s+)?(father|mother|son|daughter|brother|sister|wife|husband|widow|widower|nephew|niece|cousin|uncle|aunt|grandson|granddaughter)\s+of(?:\s+(?:the\s+)?(?:late|former|[a-z-]+)(?:\s+[a-z-]+){0,2})?$`)
	// headRole is a role that leads a body.
	headRole = regexp.MustCompile(`^(?:leader|chairman|chairwoman|chair|president|head|chief executive|director|general secretary|founder)$`)
	// newParty stands between a founder and the group: "'s new party,".
	newParty = regexp.MustCompile(`^(?:(?:new|newly-founded|newly-formed)\s+)?(?:political\s+)?(?:party|organisation|group|movement)?,?\s*(?:the\s+)?$`)
	// roleForSeat stands between a party and a seat: "MP for".
	roleForSeat = regexp.MustCompile(`^(?:mp|candidate|member|councillor) (?:for|in)(?: the)?$`)
	// seatThenName stands between a seat and its holder.
	seatThenName = regexp.MustCompile(`^(?:seat|constituency|ward)?,?$`)
	// ownPartyGap stands between a person and their party: "'s political party,".
	ownPartyGap = regexp.MustCompile(`^\s*(?:own\s+|political\s+)*party,?$`)
	// wish marks what is wanted or possible, not done, even of a candidacy.
	wish = regexp.MustCompile(`\b(?:plans? to|hopes? to|could|would|may|might|if)\b`)
	// dueTo ends the words before a candidacy that is fixed: "is due to stand".
	dueTo = regexp.MustCompile(`\b(?:due|is|was|are|were) to $`)
	// actTo ends the words before an act that was done: "decision to quit".
	actTo = regexp.MustCompile(`\b(?:decision|move|choice|resignation|defection) to $`)
)

// shadowBefore ends the words before a person that give them a shadow post: "shadow chancellor", "Shadow
// Treasury chief secretary", "Conservative shadow foreign secretary"; shadowAfter follows one given it
// after the name: "Rachel Hopkins, the shadow veterans minister", "Naz Shah, a shadow minister".
var (
	shadowBefore = regexp.MustCompile(`(?i)\bshadow\s+(?:[a-z-]+\s+){0,4}(?:(?:Mr|Mrs|Ms|Dr|Sir|Lord|Lady|Baroness)\.?\s+)?$`)
	// notShadowTitle are words no shadow post's name holds: "shadow chancellor under John Smith".
	notShadowTitle = regexp.MustCompile(`(?i)\b(?:under|by|with|to|from|at|in|on|against|and|said|says|told)\b`)
	shadowAfter    = regexp.MustCompile(`(?i)^,\s+(?:the|a|an)\s+(?:former\s+)?shadow\b`)
)

// shadowMembers reads a shadow post as membership of the Official Opposition on the document's date
// ("shadow chancellor Oliver Letwin" is a Conservative in 2004, when Michael Howard, the Tory leader, was
// Leader of the Opposition), for the people the sentence gives one and no party.
func (rd *reading) shadowMembers(s *sentence, ms []mention, got []review.Proposal) []review.Proposal {
	o := rd.opposition
	if o == nil {
		return nil
	}
	var out []review.Proposal
	for i, m := range ms {
		if m.ent.kind != graph.KindActor || m.pronoun || m.post != nil || m.possessive {
			continue // "shadow chancellor under John Smith's leadership": his leadership
		}
		gapStart := 0
		if i > 0 {
			gapStart = ms[i-1].span.End - s.span.Start
			if ms[i-1].ent.kind == graph.KindSeat && strings.HasPrefix(strings.ToLower(ms[i-1].ent.display), "shadow ") {
				gapStart = ms[i-1].span.Start - s.span.Start // "Shadow Foreign Secretary Michael Ancram"
			}
		}
		before, after := s.text[gapStart:m.span.Start-s.span.Start], s.text[m.span.End-s.span.Start:]
		var post string
		switch {
		case shadowBefore.MatchString(before) && !notShadowTitle.MatchString(before[strings.LastIndex(strings.ToLower(before), "shadow"):]):
			post = strings.TrimSpace(titleAtEnd.ReplaceAllString(strings.TrimSpace(before[strings.LastIndex(strings.ToLower(before), "shadow"):]), ""))
		case shadowAfter.MatchString(after):
			loc := shadowAfter.FindStringIndex(after)
			post = strings.TrimSpace(strings.TrimLeft(after[:loc[1]], ", "))
		default:
			continue
		}
		if s.quoted[clampIndex(m.span.Start-s.span.Start, len(s.quoted))] ||
			slices.ContainsFunc(got, func(p review.Proposal) bool { return p.Type == graph.MemberOf && p.From == m.ent.name }) {
			continue
		}
		out = append(out, review.Proposal{Type: graph.MemberOf, From: m.ent.name, To: o.party.name, Role: "shadow post",
			Status: graph.StatusReported, Rule: "shadow-post", Confidence: 0.6, Excerpt: s.text, Span: s.span,
			Resolved: []string{fmt.Sprintf("%s → %s, %s", post, o.party.display, o.why)}})
	}
	return out
}

// childrenOf opens a list of children after whose they are: "his two children", "their sons".
var childrenOf = regexp.MustCompile(`\b(his|her|their)\s+(?:(?:two|three|four|five|six|\d+|young|grown-up|adult)\s+)?(?:children|sons|daughters|kids|grandchildren)\s+$`)

// children reads "X said his wife Y … and their two children A, 16, and B" as A and B each X's (and Y's)
// family: "his" and "her" are the last person named before, "their" the last two.
func children(s *sentence, ms []mention) []candidate {
	var out []candidate
	for i, m := range ms {
		if !m.kin {
			continue
		}
		// The list's first child follows the words that open it; later ones follow a child.
		j := i
		for j > 0 && ms[j-1].kin && listGap(s.text[ms[j-1].span.End-s.span.Start:ms[j].span.Start-s.span.Start]) {
			j--
		}
		loc := childrenOf.FindStringSubmatchIndex(s.text[:ms[j].span.Start-s.span.Start])
		if loc == nil {
			continue
		}
		n := 1
		if strings.EqualFold(s.text[loc[2]:loc[3]], "their") {
			n = 2
		}
		var parents []mention
		for k := j - 1; k >= 0 && len(parents) < n; k-- {
			if ms[k].ent.kind == graph.KindActor && ms[k].ent != m.ent && ms[k].span.End-s.span.Start <= loc[0] {
				parents = append(parents, ms[k])
			}
		}
		for _, p := range parents {
			at := loc[0]
			out = append(out, candidate{typ: graph.Family, from: p, to: m, rule: "children", conf: 0.7, role: "child",
				at: at, wording: review.Span{Start: at, End: loc[1]}, described: true})
		}
	}
	return out
}

// listGap is what separates two names of a list: ", 16, and ", " and ", ", ".
func listGap(gap string) bool { return listSeparator.MatchString(gap) }

var listSeparator = regexp.MustCompile(`^(?:,\s*\d+)?(?:,\s*|\s+and\s+|,\s+and\s+)$`)

// includedList follows a party's people before a list of them: "the party's most senior politicians,
// including", "Labour MPs such as".
var includedList = regexp.MustCompile(`^(?:'s|’s)?\s+(?:[a-z-]+\s+){0,4}(?:politicians|mps|meps|msps|figures|members|councillors|frontbenchers|backbenchers|ministers|candidates|peers|rebels),?\s+(?:including|such as|among them)\s+$`)

// includedMembers reads "the party's most senior politicians, including A, B and C" as each of A, B and C
// a member of the party; a post between ("Scottish Labour leader Anas Sarwar, London Mayor Sadiq Khan") is
// no break in the list.
func includedMembers(s *sentence, ms []mention) []candidate {
	var out []candidate
	for i, p := range ms {
		if p.ent.kind != graph.KindParty || i+1 >= len(ms) {
			continue
		}
		rest := s.text[p.span.End-s.span.Start:]
		// The list starts at the next mention, which the words before it open.
		loc := includedList.FindStringIndex(strings.ToLower(rest[:ms[i+1].span.Start-p.span.End]))
		if loc == nil {
			continue
		}
		for k := i + 1; k < len(ms); k++ {
			m := ms[k]
			if k > i+1 {
				gap := strings.TrimSpace(s.text[ms[k-1].span.End-s.span.Start : m.span.Start-s.span.Start])
				if gap != "" && gap != "," && gap != "and" && gap != ", and" && !listPost.MatchString(gap) {
					break
				}
			}
			if m.ent.kind != graph.KindActor {
				continue
			}
			at := p.span.Start - s.span.Start
			out = append(out, candidate{typ: graph.MemberOf, from: m, to: p, rule: "included-member", conf: 0.65,
				at: at, wording: review.Span{Start: at, End: p.span.End - s.span.Start + loc[1]}, described: true})
		}
	}
	return out
}

// listPost is what may stand between two names of a list besides commas: a post ("leader", ", London
// Mayor") and "and".
var listPost = regexp.MustCompile(`^(?:,|and|,\s*and)?\s*(?:[A-Za-z-]+\s+){0,3}(?:leader|mayor|mp|minister|secretary|chairman|chair|spokesman|spokeswoman)?$`)

// majorityBefore ends the words before a seat its member holds by a majority: "whose 8,700 majority in",
// "a majority of 27,000 in her constituency of".
var majorityBefore = regexp.MustCompile(`\bmajority(?: of [\d,]+)?\s+in\s+(?:the\s+)?(?:(?:his|her|their)\s+(?:constituency|seat)\s+of\s+)?$`)

// majorityIn reads "X, whose majority in Y" and "X is defending a majority in Y" as X holding the seat Y:
// a majority is an incumbent's. The holder is the last person named before in the sentence.
func majorityIn(s *sentence, ms []mention) []candidate {
	var out []candidate
	for i, m := range ms {
		if m.ent.kind != graph.KindSeat || !m.ent.constituency && !m.ent.proposed {
			continue
		}
		loc := majorityBefore.FindStringIndex(s.text[:m.span.Start-s.span.Start])
		if loc == nil {
			continue
		}
		for k := i - 1; k >= 0; k-- {
			h := ms[k]
			if h.ent.kind == graph.KindActor && !h.possessive && h.span.End-s.span.Start <= loc[0] {
				out = append(out, candidate{typ: graph.HoldsOffice, from: h, to: m, rule: "majority-in", conf: 0.65,
					at: loc[0], wording: review.Span{Start: loc[0], End: m.span.End - s.span.Start}, factual: true})
				break
			}
		}
	}
	return out
}

// outOfOffice is an office left without its name: "was removed from office", "resigned from office".
var outOfOffice = regexp.MustCompile(`\b(?:was|were|been|being|is|be)?\s*(removed|ousted|resigned|stepped down|disqualified|barred) from (?:his |her |their )?(?:office|post)\b`)

// leftOffice reads "he was removed from office" as its subject leaving the one office the document names
// them in ("Mayor Lutfur Rahman … he was removed from office": REMOVED_FROM_OFFICE Mayor of Tower
// Hamlets); a person the document gives several offices, or none, is left alone.
func (rd *reading) leftOffice(s *sentence, ms []mention, offices map[*entry][]*entry) []review.Proposal {
	loc := outOfOffice.FindStringSubmatchIndex(strings.ToLower(s.text))
	if loc == nil || s.quoted[clampIndex(loc[0], len(s.quoted))] {
		return nil
	}
	var subject *mention
	for i := range ms {
		if ms[i].ent.kind == graph.KindActor && !ms[i].possessive && ms[i].span.End-s.span.Start <= loc[0] {
			subject = &ms[i]
		}
	}
	if subject == nil || len(offices[subject.ent]) != 1 || clauseBreak(s, subject.span.End, s.span.Start+loc[0]) {
		return nil
	}
	office := offices[subject.ent][0]
	typ := graph.ResignedFrom
	if v := s.text[loc[2]:loc[3]]; v == "removed" || v == "ousted" || v == "disqualified" || v == "barred" {
		typ = graph.RemovedFromOffice
	}
	c := candidate{typ: typ, from: *subject, to: mention{span: subject.span, text: office.display, kind: office.kind, ent: office},
		rule: "left-office", conf: 0.65, at: loc[0], wording: review.Span{Start: loc[0], End: loc[1]}}
	status, saidBy, ok := claimStatus(s, ms, c)
	if !ok {
		return nil
	}
	p := review.Proposal{Type: typ, From: subject.ent.name, To: office.name, Status: status, SaidBy: saidBy, Rule: "left-office",
		Confidence: 0.65, Excerpt: s.text, Span: s.span,
		Resolved: []string{fmt.Sprintf("office → %s, the one office the document names %s in", office.display, subject.ent.display)}}
	if subject.note != "" {
		p.Resolved = append([]string{subject.note}, p.Resolved...)
	}
	datesOf(s.text, c, &p)
	return []review.Proposal{p}
}

// withCandidates stands each end that is a post described as one of several people ("the home
// secretary", when two held it) for each of them, at half the confidence: one proposal per candidate,
// for review to choose.
func withCandidates(cands []candidate) []candidate {
	var out []candidate
	for _, c := range cands {
		if officeTypes[c.typ] || len(c.from.candidates) == 0 && len(c.to.candidates) == 0 {
			out = append(out, c)
			continue
		}
		froms, tos := standsFor(c.from), standsFor(c.to)
		for _, f := range froms {
			for _, t := range tos {
				if f.ent == t.ent {
					continue
				}
				x := c
				x.from, x.to, x.conf = f, t, c.conf/2
				out = append(out, x)
			}
		}
	}
	return out
}

// standsFor is a mention as each of its candidates, or itself when it has none.
func standsFor(m mention) []mention {
	if len(m.candidates) == 0 {
		return []mention{m}
	}
	var out []mention
	for _, e := range m.candidates {
		x := m
		x.ent, x.kind, x.candidates = e, graph.KindActor, nil
		out = append(out, x)
	}
	return out
}
