package ingest

// What speakers say: criticism read from someone's words, the speaker named before them ("X said Y had
// failed"), after them ("…, argued Mr Blair") or in a call on voters ("urged Muslims not to vote for
// Labour"); a denial of criticism read before ("she was not expressing political opinions"); and none of
// a party the speaker leads. Quotations that carry their speaker across sentences are read in quote.go.

import (
	"regexp"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// negativeWords mark what a speaker says of someone as criticism: "X said Y was ashamed …".
var negativeWords = regexp.MustCompile(`\b(?:ashamed|shameful|joke|parody|betray\w*|fail\w*|waste\w*|incompeten\w*|disgrace\w*|irrelevant|squabbl\w*|blame\w*|unjust|wrong|sack|hypocri\w*|arrogan\w*|out of touch|getting in the way|mess|chaos|should resign|glad to see the back|not (?:been )?straightforward|dishonest\w*|lies|lied|lying|misled|misleading|cynical|desperate|shambles|pathetic|appalled|outrageous|deluded|failings|complacen\w*|weak|scandal\w*|errors? of fact|clever(?:ly)?|gone awol|not being straight|worthless|stealth tax(?:es)?|morally indefensible|take britain backwards|let down|taken for granted|neglected|empty promises?|do(?:es)? not add up|did not add up|too late|too little|dangerous|damag(?:e|ed|ing)|disast(?:er|rous)|terrible|awful|appalling|shocking|reckless|irresponsible|unfair|unfunded|uncosted|black hole|tax (?:rises|increases?|hikes?)|higher taxes|worse off|hidden|hid|conceal\w*|sulk\w*|petty|petulan\w*|provocative|self-obsessed|childish|insult\w*|would not work|will not work|won't work|unworkable|lack(?:s|ed)? (?:the )?(?:courage|compulsion|credibility|vision|ideas|substance)|grab headlines|gimmick\w*|smear\w*|con trick|broken promises?|flawed|muddled?|blunder\w*|bungl\w*|botched|inept\w*|chaotic|extravagant|divisive|cruel|callous|untrustworthy|(?:not|never) trust|cannot be trusted|can't be trusted|deterioration|corrupt\w*|sleaze|disappoint\w*|clawed back|ignored|ignoring|abandon(?:ed|ing)|threat to|undermin\w*|attacked|condemned|slammed|hit out|damning|nonsense|rubbish|absurd|ridiculous|farce|fiasco|u-turn|panic\w*|scare\w*|misguided|mistaken|wrong-headed|not fit|unfit|unacceptable|inexcusable|indefensible|deplorable|(?:not|never|failed to) st(?:an|oo)d up for)\b`)

// notCriticising denies that its subject was criticising anyone: "she was not expressing political
// opinions", "he was not attacking anyone", "she did not criticise".
var notCriticising = regexp.MustCompile(`\b(?:was|were|is|are|had|has|have)\s+(?:not|never)\s+(?:been\s+)?(?:criticising|criticizing|attacking|having a go at|expressing (?:any\s+)?(?:political\s+)?(?:opinions|views)|making (?:a|any) political (?:point|comment)s?|being political)\b|\bdid\s+(?:not|n't)\s+(?:criticise|criticize|attack)\b`)

// deniedCriticism reads "she was not expressing political opinions" as a denial of each criticism the
// document read before from her: the same relation, DENIED, with this sentence as its evidence.
func (rd *reading) deniedCriticism(props []review.Proposal) []review.Proposal {
	var out []review.Proposal
	for si := range rd.sentences {
		s := &rd.sentences[si]
		loc := notCriticising.FindStringIndex(strings.ToLower(s.text))
		if loc == nil || s.quoted[clampIndex(loc[0], len(s.quoted))] {
			continue
		}
		// Its subject: the person named (or a pronoun standing for one) right before the denial.
		var subject *mention
		for i := range rd.mentions[si] {
			m := &rd.mentions[si][i]
			if m.ent.kind == graph.KindActor && m.span.End-s.span.Start <= loc[0] && strings.TrimSpace(s.text[m.span.End-s.span.Start:loc[0]]) == "" {
				subject = m
			}
		}
		if subject == nil {
			continue
		}
		for _, p := range props {
			if p.Type != graph.Criticised || p.From != subject.ent.name || p.Status == graph.StatusDenied || p.Span.Start >= s.span.Start {
				continue
			}
			d := review.Proposal{Type: graph.Criticised, From: p.From, To: p.To, Status: graph.StatusDenied, Rule: "denied-criticism",
				Confidence: 0.55, Excerpt: s.text, Span: s.span}
			if subject.note != "" {
				d.Resolved = []string{subject.note}
			}
			if !slices.ContainsFunc(out, func(o review.Proposal) bool { return o.To == d.To && o.From == d.From }) {
				out = append(out, d)
			}
		}
	}
	return out
}

// inferredCriticism are the rules that read criticism from what someone says, not from a verb that says
// it: their target is whom the words speak ill of, which a speaker's own party seldom is.
var inferredCriticism = map[string]bool{"said-criticism": true, "said-after-criticism": true, "quoted-criticism": true}

// dropOwnSide drops criticism read from someone's words of a party the document makes them the leader or
// founder of, or the graph (or polgraph's record) says they led (a member may speak ill of the party they
// leave) ("Veritas would avoid the old parties' lies", said its founder): the words were
// about others.
func (rd *reading) dropOwnSide(ps []review.Proposal) []review.Proposal {
	own := map[[2]graph.EntityName]bool{}
	for _, p := range ps {
		if (p.Type == graph.Leads || p.Type == graph.Founded) && p.Status != graph.StatusDenied {
			own[[2]graph.EntityName{p.From, p.To}] = true
		}
	}
	return slices.DeleteFunc(ps, func(p review.Proposal) bool {
		return p.Type == graph.Criticised && inferredCriticism[p.Rule] && (own[[2]graph.EntityName{p.From, p.To}] || rd.everLed(p.From, p.To))
	})
}

// attributionAfter ends a sentence that puts its speaker last: "…, Lib Dem leader Charles Kennedy has said."
// or "…, said Mr Howard." (perhaps with where: "told Radio 4's Today programme").
var attributionAfter = regexp.MustCompile(`^\s*(?:has |have |had )?(?:said|says|told|claimed|claims|insisted|argued|warned|added)\b[^,;"“”]{0,60}[.!]?\s*$`)

// attributionInverted puts the speech verb before a speaker named last: "…, argued Mr Blair."
var attributionInverted = regexp.MustCompile(`[,”"]\s*(?:said|says|argued|insisted|warned|added|claimed)\s+(?:(?:[A-Z][a-z]+|[a-z]+)\s+){0,5}$`)

// sentenceEnd is what may follow the last word of a sentence.
var sentenceEnd = regexp.MustCompile(`^[\s.!”"']*$`)

// saysMore follows a speech verb with what was said: "said it was misdirected" is no "…, X said." but a
// saying of its own.
var saysMore = regexp.MustCompile(`^\s*(?:has |have |had )?\w+\s+(?:that\s+)?(?:it|he|she|they|this|these|the plans?|the scheme)\b`)

// adjectival reports whether a party's name stands as an adjective ("a Tory government", "Labour MPs"):
// not the party itself, unless what follows is its plans ("Tory proposals would not work").
func adjectival(s *sentence, m mention) bool {
	rest := s.text[m.span.End-s.span.Start:]
	return m.ent.kind == graph.KindParty && modifierNoun.MatchString(rest) && !partyPlans.MatchString(rest)
}

// saidAfterCriticism reads "<criticism of Y>, X said." as X criticising Y, as saidCriticism reads the
// speaker first: the speaker is the person or party just before the closing speech verb, the targets the
// first person or party of what was said (and one coordinated with it).
func saidAfterCriticism(s *sentence, ms []mention) []candidate {
	var speaker *mention
	for i := range ms {
		m := &ms[i]
		if (m.ent.kind == graph.KindActor || m.ent.kind == graph.KindParty) && !m.possessive &&
			(attributionAfter.MatchString(s.text[m.span.End-s.span.Start:]) && !saysMore.MatchString(strings.ToLower(s.text[m.span.End-s.span.Start:])) ||
				attributionInverted.MatchString(s.text[:m.span.Start-s.span.Start]) && sentenceEnd.MatchString(s.text[m.span.End-s.span.Start:])) {
			speaker = m
			break
		}
	}
	if speaker == nil {
		return nil
	}
	// What was said ends at the last comma before the speaker (its role words, "Lib Dem leader", between).
	comma := strings.LastIndexAny(s.text[:speaker.span.Start-s.span.Start], ",”\"")
	if comma <= 0 {
		return nil
	}
	said := strings.ToLower(s.text[:comma])
	neg := negativeWords.FindStringIndex(said)
	if neg == nil || negation.MatchString(said[:neg[0]]) || defence.MatchString(said[:neg[0]]) {
		return nil
	}
	// The target: the person or party nearest before the critical words, and one coordinated before it
	// ("Labour and Tories are not being straight").
	var target *mention
	for i := range ms {
		m := &ms[i]
		if m.span.End-s.span.Start > neg[0] || m.ent == speaker.ent || m.ent.kind != graph.KindActor && m.ent.kind != graph.KindParty || m.possessive ||
			adjectival(s, *m) {
			continue
		}
		target = m
	}
	if target == nil {
		return nil
	}
	at := speaker.span.End - s.span.Start
	out := []candidate{{typ: graph.Criticised, from: *speaker, to: *target, rule: "said-after-criticism", conf: 0.55,
		at: at, wording: review.Span{Start: at, End: len(s.text)}, spoken: true}}
	for i := range ms {
		if prev := &ms[i]; prev.span.End <= target.span.Start && prev.ent != speaker.ent && (prev.ent.kind == graph.KindActor || prev.ent.kind == graph.KindParty) {
			gap := strings.TrimSpace(s.text[prev.span.End-s.span.Start : target.span.Start-s.span.Start])
			if (gap == "and" || gap == ",") && nextCoordinated(s, ms, *prev) != nil {
				out = append(out, candidate{typ: graph.Criticised, from: *speaker, to: *prev, rule: "said-after-criticism", conf: 0.55,
					at: at, wording: review.Span{Start: at, End: len(s.text)}, spoken: true})
			}
		}
	}
	return out
}

// nounBefore ends the words before a speech verb's form that is a noun there: "all claims", "the claim".
var nounBefore = regexp.MustCompile(`\b(?:a|an|all|the|his|her|their|its|these|those|such|any|false|new|asylum|benefit|expenses|pay|wage|insurance)\s+$`)

// otherClause starts a clause of another subject after what was said: "…, while Labour criticised …".
var otherClause = regexp.MustCompile(`(?:,|;)\s*(?:while|whereas|but|and)\s|;`)

// saidCriticism reads "X said Y … <a negative word>" as X criticising Y: the speaker is the person or
// party before a speech verb, the target the first person or party after it (and one coordinated with
// it).
func saidCriticism(s *sentence, ms []mention) []candidate {
	var loc []int
	for _, l := range speechVerb.FindAllStringIndex(s.text, -1) {
		if !nounBefore.MatchString(strings.ToLower(s.text[:l[0]])) {
			loc = l // "process all claims": a noun, not a speech verb
			break
		}
	}
	if loc == nil {
		return nil
	}
	if before := strings.TrimSpace(s.text[:loc[0]]); strings.HasSuffix(before, ",") || strings.HasSuffix(before, "”") || strings.HasSuffix(before, "\"") {
		return nil // "…, argued Mr Blair": the speaker comes after (saidAfterCriticism)
	}
	said := strings.ToLower(s.text[loc[1]:])
	if cut := otherClause.FindStringIndex(said); cut != nil {
		said = said[:cut[0]] // "…, while Labour criticised …" is another's saying
	}
	neg := negativeWords.FindStringIndex(said)
	if neg == nil || negation.MatchString(said[:neg[0]]) || defence.MatchString(said[:neg[0]]) {
		return nil // no criticism, one denied ("would not allow a row to damage Labour"), or a defence ("had done nothing wrong")
	}
	at := s.span.Start + loc[0]
	var speaker *mention
	for i := range ms {
		if ms[i].span.End <= at && at-ms[i].span.End < 80 && (ms[i].ent.kind == graph.KindActor || ms[i].ent.kind == graph.KindParty) && !ms[i].possessive &&
			!(ms[i].ent.kind == graph.KindParty && leaderAfter.MatchString(s.text[ms[i].span.End-s.span.Start:])) { // "the Tory leader argued": its leader, not the party
			speaker = &ms[i]
		}
	}
	if speaker == nil {
		return nil
	}
	// Speakers coordinated: "The Conservatives and Lib Dems said …".
	speakers := []mention{*speaker}
	for i := range ms {
		if next := nextCoordinated(s, ms, ms[i]); next != nil && next.span == speaker.span && ms[i].ent != speaker.ent &&
			(ms[i].ent.kind == graph.KindActor || ms[i].ent.kind == graph.KindParty) && !ms[i].possessive {
			speakers = append(speakers, ms[i])
		}
	}
	var out []candidate
	for i := range ms {
		m := ms[i]
		if m.span.Start < s.span.Start+loc[1] || m.ent == speaker.ent || m.ent.kind != graph.KindActor && m.ent.kind != graph.KindParty || adjectival(s, m) {
			continue
		}
		if m.span.Start-s.span.Start-loc[1] >= len(said) {
			break // past the saying's clause
		}
		for _, sp := range speakers {
			if sp.ent == m.ent {
				continue
			}
			out = append(out, candidate{typ: graph.Criticised, from: sp, to: m, rule: "said-criticism", conf: 0.55,
				at: loc[0], wording: review.Span{Start: loc[0], End: loc[1]}})
			if next := nextCoordinated(s, ms, m); next != nil && next.ent != sp.ent {
				out = append(out, candidate{typ: graph.Criticised, from: sp, to: *next, rule: "said-criticism", conf: 0.55,
					at: loc[0], wording: review.Span{Start: loc[0], End: loc[1]}})
			}
		}
		break
	}
	return out
}

// urgeNotTo is a call on voters not to back someone: "urged Muslims not to vote for", "told supporters
// not to back".
var urgeNotTo = regexp.MustCompile(`\b(?:urg(?:ed|es|ing)|told|tell(?:s|ing)?|call(?:ed|s|ing)? on|ask(?:ed|s|ing)|advis(?:ed|es|ing))\s+(?:[a-z]+\s+){0,4}not to (?:vote for|back|support|elect)\s+(?:the\s+)?$`)

// urgedAgainst reads "X urged Muslims not to vote for Y" as X criticising Y: the subject is the person,
// party or body named last before the call.
func urgedAgainst(s *sentence, ms []mention) []candidate {
	var out []candidate
	for i, m := range ms {
		if m.ent.kind != graph.KindActor && m.ent.kind != graph.KindParty || i == 0 {
			continue
		}
		loc := urgeNotTo.FindStringIndex(strings.ToLower(s.text[:m.span.Start-s.span.Start]))
		if loc == nil {
			continue
		}
		var subject *mention
		for k := i - 1; k >= 0; k-- {
			if ms[k].span.End-s.span.Start <= loc[0] && (ms[k].ent.kind == graph.KindActor || ms[k].ent.kind == graph.KindParty || ms[k].ent.kind == graph.KindOrganisation) {
				subject = &ms[k]
				break
			}
		}
		if subject == nil || subject.ent == m.ent {
			continue
		}
		out = append(out, candidate{typ: graph.Criticised, from: *subject, to: m, rule: "urged-against", conf: 0.65,
			at: loc[0], wording: review.Span{Start: loc[0], End: loc[1]}, spoken: true})
	}
	return out
}
