// Package review owns the review queue: documents read by the ingest pipeline (graph/ingest), the
// entities and relations it proposes from them, and what reviewers decide. Proposals live beside the
// graph, never in it: they count as links only once approved, when they are written through intake as
// ordinary claims.
package review

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// State is where a proposal stands in review.
type State string

// The review states.
const (
	Pending  State = "PENDING"
	Approved State = "APPROVED"
	Rejected State = "REJECTED"
	// Merged is a proposed entity that a reviewer merged into an existing one (MergedInto).
	Merged State = "MERGED"
)

// Document is one text the pipeline read: its cleaned text and the source its claims will cite.
type Document struct {
	// Hash is the hex SHA-256 of the cleaned text: the same text is read once, whatever file holds it.
	Hash string
	// Source is the source that approved claims cite; its name is derived from the hash
	// (SourceNameFor), its title, outlet, author and date from the text where it gives them.
	Source graph.Source
	// Format is what the input was read as: "text", "html" or "posts".
	Format string
	// Path is the file or request field the document came from (informational).
	Path string
	// Text is the cleaned text; proposals' excerpts are spans of it.
	Text     string
	Ingested time.Time
}

// SourceNameFor is the source name of the document whose text has the given hash.
func SourceNameFor(hash string) graph.SourceName {
	if len(hash) > 16 {
		hash = hash[:16]
	}
	return graph.SourceName("sources/ingest-" + hash)
}

// HashText is the document hash of a cleaned text.
func HashText(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// Entity is an entity the pipeline met in a document but the graph does not hold: a proposal to create
// it. Approving a relation that names it creates it.
type Entity struct {
	Name        graph.EntityName // the name it will have, e.g. actors/oona-king
	Kind        graph.Kind
	DisplayName string
	Aliases     []string // other spellings met in the documents
	Document    string   // hash of the first document that proposed it
	State       State
	// MergedInto is the existing entity a reviewer said it is (State Merged).
	MergedInto graph.EntityName
	Reason     string    // why it was rejected
	Reviewer   string    // who approved, merged or rejected it
	Reviewed   time.Time // when
}

// Span is a byte range [Start, End) of a document's text.
type Span struct{ Start, End int }

// Proposal is one candidate relation read from one sentence of one document, with the claim that would
// back (or deny) it.
type Proposal struct {
	ID       string // "proposals/<16 hex>", derived from Signature: the same reading is proposed once
	Document string // the document's hash
	Type     graph.RelationType
	// From and To are existing entities, or proposed ones (Entity.Name).
	From, To graph.EntityName
	Role     string
	Date     graph.FuzzyDate // when an event happened, where the text says
	// ValidFrom and ValidTo bound a state (membership, office) where the text says.
	ValidFrom, ValidTo graph.FuzzyDate
	Status             graph.ClaimStatus
	Confidence         float64
	Excerpt            string // the sentence
	Span               Span   // where the excerpt is in the document's text
	SaidBy             graph.EntityName
	// Rule names the wording that proposed it, e.g. "accused-of", so a reviewer sees why.
	Rule string
	// Resolved says how descriptions of its ends were resolved through the graph, as of the document's
	// date: "the Tory leader → Michael Howard, LEADS Conservatives 2003–2005".
	Resolved []string

	State    State
	Reason   string             // why it was rejected
	Relation graph.RelationName // the relation an approval wrote the claim to
	Reviewer string             // who approved or rejected it
	Reviewed time.Time
}

// Signature is what makes two proposals the same reading: type, ends and the excerpt's words. A
// rejected proposal keeps its signature, so the same reading is not proposed again.
func (p Proposal) Signature() string {
	return strings.Join([]string{string(p.Type), string(p.From), string(p.To), NormaliseExcerpt(p.Excerpt)}, "|")
}

// ProposalID is the id of proposals with the given signature.
func ProposalID(signature string) string {
	sum := sha256.Sum256([]byte(signature))
	return "proposals/" + hex.EncodeToString(sum[:8])
}

// NormaliseExcerpt folds case and runs of spaces and punctuation, so that the same sentence copied with
// different quotes or spacing gives one signature.
func NormaliseExcerpt(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && !strings.ContainsRune("‘’“”–—…", r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
			continue
		}
		space = true
	}
	return b.String()
}

// Reading is what the pipeline read from one document.
type Reading struct {
	Document  Document
	Entities  []Entity   // proposed entities, in order of first mention
	Proposals []Proposal // in order of the text
	// Mentions are the names the document uses, each with the entity it was linked to, in order of the
	// text: for measuring the linking (the queue keeps the proposals and entities, not these).
	Mentions []Mention
}

// Mention is a name a document uses, and the entity it means.
type Mention struct {
	Text   string
	Span   Span
	Entity graph.EntityName
	// Proposed is set when the entity is not one the graph held: proposed by this document or another.
	Proposed bool
}
