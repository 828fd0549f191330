package dataset

import (
	"bufio"
	"bytes"
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

// Header is what a dataset's header record says of it.
type Header struct {
	Name, Description string
	// Filter is, for an export, the filter that chose its relations in words (graph.RelationFilter.Words);
	// empty when none did.
	Filter string
	// Exported marks an export of a graph: it loads back as it is (see the format's header).
	Exported bool
}

// NewWriter starts a dataset on w with its header record.
func NewWriter(w io.Writer, name, description string) *Writer {
	return NewWriterHeaded(w, Header{Name: name, Description: description})
}

// NewWriterHeaded starts a dataset on w with the header h.
func NewWriterHeaded(w io.Writer, h Header) *Writer {
	dw := &Writer{w: bufio.NewWriterSize(w, 256<<10)}
	dw.record(header{Record: "dataset", Format: Format, Name: h.Name, Description: h.Description, Filter: h.Filter, Exported: h.Exported})
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

// WriteSubgraph writes a whole subgraph as one dataset file: sources, entities, then relations.
func WriteSubgraph(w io.Writer, name, description string, g graph.Subgraph) error {
	return WriteSubgraphHeaded(w, Header{Name: name, Description: description}, g)
}

// WriteSubgraphHeaded is WriteSubgraph with the header h.
func WriteSubgraphHeaded(w io.Writer, h Header, g graph.Subgraph) error {
	dw := NewWriterHeaded(w, h)
	for _, s := range g.Sources {
		dw.WriteSource(s)
	}
	for _, e := range g.Entities {
		dw.WriteEntity(e)
	}
	for _, r := range g.Relations {
		if err := dw.WriteRelation(r); err != nil {
			return err
		}
	}
	return dw.Flush()
}

// Check reads a subgraph as Read reads a file, so that records made by other means (an import of
// another format) meet every rule of the format before they are written: it returns them as a Dataset,
// or Read's Invalid error naming each problem by record (name is the file name the messages give).
func Check(name string, g graph.Subgraph) (*Dataset, []byte, error) {
	var buf bytes.Buffer
	if err := WriteSubgraph(&buf, "check", "", g); err != nil {
		return nil, nil, err
	}
	ds, err := Read([]File{{Name: name, R: bytes.NewReader(buf.Bytes())}})
	return ds, buf.Bytes(), err
}
