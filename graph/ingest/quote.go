package ingest

import (
	"regexp"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

var (
	// opensQuote follows a speaker whose words come next: `X said: "`, `X told the BBC: "`.
	opensQuote = regexp.MustCompile(`^\s*(?:has |have |had )?(?:said|says|told|added|warned|argued|insisted|claimed|declared|wrote|continued|went on)\b[^"“”:.]{0,60}[:,]?\s*["“]`)
	// speaksBefore and speaksAfter surround a speaker named after the words: `"…," said X.`, `"…," X said.`
	speaksBefore = regexp.MustCompile(`["”]\s*,?\s*(?:(said|says|added|warned|argued|insisted|claimed|declared)\s+)?(?:(?:[A-Z][a-z]+|[a-z]+)\s+){0,5}$`)
	speaksAfter  = regexp.MustCompile(`^\s*(?:has |had )?(said|says|added|warned|argued|insisted|claimed|declared)?\s*[.!]?\s*["”]?\s*$`)
)

// quoteSpeakers reads who says each sentence that is a quotation without naming its speaker: the speaker
// of the quotation it continues (`X said: "A. B."`: B is X's), or the one named last before it in the
// paragraph or the one before (`X said: "A."` then a paragraph `"B."`). A sentence that names its own
// speaker, or that is not quoted, has none: its speaker, if any, is read in the sentence.
func (rd *reading) quoteSpeakers(paragraphs []review.Span) []*mention {
	out := make([]*mention, len(rd.sentences))
	var speaker *mention
	para, open := -1, false
	for si := range rd.sentences {
		s := &rd.sentences[si]
		if p := slices.IndexFunc(paragraphs, func(p review.Span) bool { return p.Start <= s.span.Start && s.span.Start < p.End }); p != para {
			para, open = p, false
		}
		text := strings.TrimSpace(s.text)
		if stray := strings.TrimPrefix(text, `"`); stray != text && strings.HasPrefix(stray, " ") {
			text = strings.TrimSpace(stray) // `" And Chancellor Gordon Brown said …`: the mark closes what came before
		}
		starts := strings.HasPrefix(text, `"`) || strings.HasPrefix(text, "“")
		if starts {
			open = false // a quotation opens here, whatever an unbalanced mark before said
		}
		quote := open || starts
		own := attributed(s, rd.mentions[si])
		switch {
		case own != nil:
			speaker = own
		case speaksUnquoted(text):
			speaker = nil // "And Chancellor Gordon Brown said …": another speaks
		case quote && speaker != nil:
			out[si] = speaker
		case !quote:
			speaker = nil // the outlet speaks again: a later quotation is no longer the speaker's
		}
		open = endsInQuote(s.text, open)
	}
	return out
}

// speaksUnquoted reports whether the sentence has a speech verb outside quotation marks: someone named
// in it speaks, not the speaker of a quotation before.
func speaksUnquoted(text string) bool {
	quoted := quotedBytes(text)
	for _, loc := range speechVerb.FindAllStringIndex(text, -1) {
		if !quoted[clampIndex(loc[0], len(quoted))] {
			return true
		}
	}
	return false
}

// attributed is the sentence's speaker of a quotation, where it names one: before the words (`X said:
// "…`) or after them (`"…," said X.`).
func attributed(s *sentence, ms []mention) *mention {
	for i := range ms {
		m := &ms[i]
		if m.ent.kind != graph.KindActor && m.ent.kind != graph.KindParty || m.possessive {
			continue
		}
		before, after := s.text[:m.span.Start-s.span.Start], s.text[m.span.End-s.span.Start:]
		if opensQuote.MatchString(after) {
			return m
		}
		if b, a := speaksBefore.FindStringSubmatch(before), speaksAfter.FindStringSubmatch(after); b != nil && a != nil && (b[1] != "" || a[1] != "") {
			return m
		}
	}
	return nil
}

// endsInQuote reports whether a quotation is still open at the end of text, given whether it was at its
// start: straight quotes toggle, curly ones open and close.
func endsInQuote(text string, open bool) bool {
	for _, r := range text {
		switch r {
		case '"':
			open = !open
		case '“':
			open = true
		case '”':
			open = false
		}
	}
	return open
}

// quotedCriticism reads a quotation whose speaker another sentence names as that speaker criticising the
// first person or party it speaks ill of: `Mr Fox said: "…" / "The reality is, the Lib Dems lack the
// courage …"` is Liam Fox criticising the Liberal Democrats.
func quotedCriticism(s *sentence, ms []mention, speaker *mention) []candidate {
	lower := strings.ToLower(s.text)
	neg := negativeWords.FindStringIndex(lower)
	if neg == nil || negation.MatchString(lower[:neg[0]]) || defence.MatchString(lower[:neg[0]]) || strings.Contains(lower, "?") {
		return nil
	}
	// Whom the words speak ill of: the person or party nearest before them ("Labour's arrogance has been
	// their undoing"), or else one soon after them in the same clause ("the shocking voice of the
	// Conservative Party"; not "wrong when they said Milburn …").
	var target *mention
	for i := range ms {
		m := &ms[i]
		if m.ent == speaker.ent || m.ent.kind != graph.KindActor && m.ent.kind != graph.KindParty || m.pronoun || adjectival(s, *m) {
			continue
		}
		if m.span.End-s.span.Start <= neg[0] {
			target = m
			continue
		}
		if target == nil {
			between := lower[neg[1] : m.span.Start-s.span.Start]
			if len(between) <= 40 && !objectClause.MatchString(between) && !strings.ContainsAny(between, ",;:") {
				target = m
			}
		}
		break
	}
	if target == nil {
		return nil
	}
	wording := review.Span{Start: neg[0], End: neg[1]}
	out := []candidate{{typ: graph.Criticised, from: *speaker, to: *target, rule: "quoted-criticism", conf: 0.5,
		at: neg[0], wording: wording, spoken: true}}
	if next := nextCoordinated(s, ms, *target); next != nil && next.ent != speaker.ent {
		out = append(out, candidate{typ: graph.Criticised, from: *speaker, to: *next, rule: "quoted-criticism", conf: 0.5,
			at: neg[0], wording: wording, spoken: true})
	}
	return out
}
