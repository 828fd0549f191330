// Package ingest reads articles and social posts into proposals for the review queue (graph/review):
// it cleans the text, splits sentences, finds mentions of people, parties, seats, offices and
// organisations, links them to the graph's entities (aliases, fuzzy and phonetic matching, surnames within
// a document) and proposes relations in the vocabulary from the sentences' wording, each with its sentence
// as the excerpt, a confidence and a claim status. It reads; it never writes.
package ingest

import (
	"time"

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
}

// Reader reads documents against the entities the graph holds.
type Reader struct {
	known []graph.Entity
	Now   func() time.Time
}

// NewReader returns a Reader that links mentions to the given entities (the graph's, without deleted
// ones) and to the gazetteer polgraph ships.
func NewReader(known []graph.Entity) *Reader {
	return &Reader{known: known, Now: time.Now}
}

// Read reads one document. It fails (Invalid) only when the input is not text at all.
func (r *Reader) Read(in Input) (review.Reading, error) {
	return review.Reading{}, graph.E("ingest.Read", graph.Internal, "not implemented yet")
}
