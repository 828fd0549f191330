package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// Writer writes a dataset file record by record, so that a dataset of any size can be written without
// holding it: the header first, then sources, entities and relations in any order Read accepts.
// It writes only what it is given; checking the whole is Read's job.
type Writer struct {
	w   *bufio.Writer
	err error
}

// The records as written: empty optional fields are left out.
type (
	sourceOut struct {
		Record    string `json:"record"`
		Name      string `json:"name"`
		Title     string `json:"title"`
		Kind      string `json:"kind"`
		Outlet    string `json:"outlet,omitempty"`
		Author    string `json:"author,omitempty"`
		Published string `json:"published,omitempty"`
		URL       string `json:"url,omitempty"`
	}
	entityOut struct {
		Record      string            `json:"record"`
		Name        string            `json:"name"`
		DisplayName string            `json:"display_name"`
		Aliases     []string          `json:"aliases,omitempty"`
		Description string            `json:"description,omitempty"`
		Identifiers map[string]string `json:"identifiers,omitempty"`
		ValidFrom   string            `json:"valid_from,omitempty"`
		ValidTo     string            `json:"valid_to,omitempty"`
	}
	claimOut struct {
		Source     string  `json:"source"`
		Excerpt    string  `json:"excerpt"`
		Confidence float64 `json:"confidence"`
		Status     string  `json:"status"`
		SaidBy     string  `json:"said_by,omitempty"`
		Key        string  `json:"key,omitempty"`
	}
	relationOut struct {
		Record    string     `json:"record"`
		Type      string     `json:"type"`
		From      string     `json:"from"`
		To        string     `json:"to"`
		Key       string     `json:"key,omitempty"`
		Role      string     `json:"role,omitempty"`
		Via       string     `json:"via,omitempty"`
		ValidFrom string     `json:"valid_from,omitempty"`
		ValidTo   string     `json:"valid_to,omitempty"`
		Date      string     `json:"date,omitempty"`
		Claims    []claimOut `json:"claims"`
	}
)

// NewWriter starts a dataset on w with its header record.
func NewWriter(w io.Writer, name, description string) *Writer {
	dw := &Writer{w: bufio.NewWriterSize(w, 256<<10)}
	dw.record(header{Record: "dataset", Format: Format, Name: name, Description: description})
	return dw
}

func (w *Writer) record(v any) error {
	if w.err != nil {
		return w.err
	}
	b, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return err
	}
	b = append(b, '\n')
	_, w.err = w.w.Write(b)
	return w.err
}

// WriteSource writes a source record.
func (w *Writer) WriteSource(s graph.Source) error {
	return w.record(sourceOut{Record: "source", Name: string(s.Name), Title: s.Title, Kind: string(s.Kind),
		Outlet: s.Outlet, Author: s.Author, Published: s.Published.String(), URL: s.URL})
}

// WriteEntity writes an entity record.
func (w *Writer) WriteEntity(e graph.Entity) error {
	return w.record(entityOut{Record: "entity", Name: string(e.Name), DisplayName: e.DisplayName, Aliases: e.Aliases,
		Description: e.Description, Identifiers: e.Identifiers, ValidFrom: e.ValidFrom.String(), ValidTo: e.ValidTo.String()})
}

// WriteRelation writes a relation record with its claims. The relation's key and each claim's key are
// read back from their names, which must be the ones graph.RelationNameFor and graph.ClaimNameFor derive.
func (w *Writer) WriteRelation(r graph.Relation) error {
	key, err := relationKey(r)
	if err != nil {
		return err
	}
	out := relationOut{Record: "relation", Type: string(r.Type), From: string(r.From), To: string(r.To), Key: key,
		Role: r.Role, Via: string(r.Via), ValidFrom: r.ValidFrom.String(), ValidTo: r.ValidTo.String(), Date: r.Date.String(),
		Claims: make([]claimOut, len(r.Claims))}
	for i, c := range r.Claims {
		ck, err := claimKey(r.Name, c)
		if err != nil {
			return err
		}
		out.Claims[i] = claimOut{Source: string(c.Source.Name), Excerpt: c.Excerpt, Confidence: c.Confidence,
			Status: string(c.Status), SaidBy: string(c.SaidBy), Key: ck}
	}
	return w.record(out)
}

// Flush writes out what is buffered and reports the first error met.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

func relationKey(r graph.Relation) (string, error) {
	base := string(graph.RelationNameFor(r.From, r.Type, r.To, ""))
	switch rest, ok := strings.CutPrefix(string(r.Name), base); {
	case ok && rest == "":
		return "", nil
	case ok && len(rest) > 1 && rest[0] == '.':
		return rest[1:], nil
	}
	return "", fmt.Errorf("dataset.Writer: relation %s is not named as %s.<key>", r.Name, base)
}

func claimKey(rel graph.RelationName, c graph.Claim) (string, error) {
	base := graph.ClaimNameFor(rel, c.Source.Name, "")
	switch rest, ok := strings.CutPrefix(c.Name, base); {
	case ok && rest == "":
		return "", nil
	case ok && len(rest) > 1 && rest[0] == '-':
		return rest[1:], nil
	}
	return "", fmt.Errorf("dataset.Writer: claim %s is not named as %s-<key>", c.Name, base)
}
