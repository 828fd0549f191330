package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/polgraph/polgraph/graph"
)

// Writer writes a dataset file record by record, so that a dataset of any size can be written without
// holding it: the header first, then sources, entities and relations in any order Read accepts.
// It writes only what it is given; checking the whole is Read's job.
type Writer struct {
	w   *bufio.Writer
	err error
}

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
func (w *Writer) WriteSource(s graph.Source) error { return w.record(graph.SourceRecord(s)) }

// WriteEntity writes an entity record.
func (w *Writer) WriteEntity(e graph.Entity) error { return w.record(graph.EntityRecord(e)) }

// WriteRelation writes a relation record with its claims (see graph.RelationRecord).
func (w *Writer) WriteRelation(r graph.Relation) error {
	out, err := graph.RelationRecord(r)
	if err != nil {
		return fmt.Errorf("dataset.Writer: %w", err)
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
