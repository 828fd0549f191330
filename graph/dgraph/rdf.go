package dgraph

import (
	"bufio"

	"io"
	"strconv"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// NQuadWriter writes resources as RDF N-Quads for Dgraph's live loader (`dgraph live -f FILE -s
// schema/schema.dql`): the same nodes, predicates and values the Store's upserts write, so that a graph
// loaded either way answers every query alike. Each resource is a blank node whose label is derived from
// its resource name, so records may refer to one another across the whole file, in any order, and the
// writer keeps nothing between records. Empty values are left out.
type NQuadWriter struct {
	w     *bufio.Writer
	buf   []byte
	quads int64
	err   error
	meta  bool   // whether the graph's version node is written
	bulk  string // the load's id, on the graph's version node (pg.bulk_id)
	packs func(Pack)
}

// Pack is a node's pack as an NQuadWriter writes it: Value is "" for an entity written without one.
type Pack struct {
	Kind  PackKind
	Name  string
	Value string
}

// PackKind says what a Pack is of.
type PackKind byte

const (
	SourcePack PackKind = iota
	EntityPack
	RelationPack
)

// OnPack has the writer give each pack it writes to packs too (BulkFill.AddPack).
func (q *NQuadWriter) OnPack(packs func(Pack)) { q.packs = packs }

func (q *NQuadWriter) pack(kind PackKind, name, value string) {
	if q.packs != nil {
		q.packs(Pack{kind, name, value})
	}
}

// NewNQuadWriter writes N-Quads to w.
func NewNQuadWriter(w io.Writer) *NQuadWriter {
	return &NQuadWriter{w: bufio.NewWriterSize(w, 256<<10), bulk: newBulkID()}
}

// BulkID is the id the graph's meta node carries once what the writer wrote is loaded (pg.bulk_id; see
// BulkFill): another for every writer.
func (q *NQuadWriter) BulkID() string { return q.bulk }

// Quads is how many N-Quads have been written.
func (q *NQuadWriter) Quads() int64 { return q.quads }

// Flush writes out what is buffered and reports the first error met.
func (q *NQuadWriter) Flush() error {
	if q.err != nil {
		return q.err
	}
	return q.w.Flush()
}

func (q *NQuadWriter) emit() error {
	if q.err == nil {
		_, q.err = q.w.Write(q.buf)
	}
	q.buf = q.buf[:0]
	return q.err
}

// label is the blank node of a resource: the one the Store's upserts use for a new node.
func label(name string) string { return "_:" + blank(name) }

func (q *NQuadWriter) str(subject, pred, value string) {
	if value == "" {
		return
	}
	q.buf = appendStr(q.buf, subject, pred, value)
	q.quads++
}

func (q *NQuadWriter) typed(subject, pred, value, xsd string) {
	q.buf = appendTyped(q.buf, subject, pred, value, xsd)
	q.quads++
}

func (q *NQuadWriter) edge(subject, pred, object string) {
	q.buf = appendEdge(q.buf, subject, pred, object)
	q.quads++
}

// appendStr, appendTyped and appendEdge append one N-Quad, "subject <pred> object .": a string, a typed
// literal (xs:int, xs:float...), or a node (<0x1> or _:label).
func appendStr(b []byte, subject, pred, value string) []byte {
	return append(appendLiteral(quadStart(b, subject, pred), value), " .\n"...)
}

func appendTyped(b []byte, subject, pred, value, xsd string) []byte {
	b = appendLiteral(quadStart(b, subject, pred), value)
	b = append(b, "^^<xs:"...)
	b = append(b, xsd...)
	return append(b, "> .\n"...)
}

func appendEdge(b []byte, subject, pred, object string) []byte {
	return append(append(quadStart(b, subject, pred), object...), " .\n"...)
}

func quadStart(b []byte, subject, pred string) []byte {
	b = append(b, subject...)
	b = append(b, " <"...)
	b = append(b, pred...)
	return append(b, "> "...)
}

const hexDigit = "0123456789abcdef"

// appendLiteral appends s as an N-Quads string literal.
func appendLiteral(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 || c == 0x7f {
				// Other control characters, which the record formats refuse but other writes may carry.
				b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&15])
				continue
			}
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// WriteSource writes a source node.
func (q *NQuadWriter) WriteSource(s graph.Source) error {
	n := label(string(s.Name))
	q.str(n, "pg.name", string(s.Name))
	q.str(n, "dgraph.type", "Source")
	q.str(n, "pg.title", s.Title)
	q.str(n, "pg.source_kind", string(s.Kind))
	q.str(n, "pg.outlet", s.Outlet)
	q.str(n, "pg.author", s.Author)
	q.str(n, "pg.published", s.Published.String())
	q.str(n, "pg.url", s.URL)
	q.str(n, "pg.retrieved", s.Retrieved.String())
	q.str(n, "pg.licence", s.Licence)
	q.typed(n, "pg.changed", "1", "int")
	pack := packSource(s, 1)
	q.str(n, "pg.pack", pack)
	q.pack(SourcePack, string(s.Name), pack)
	return q.emit()
}

// WriteEntity writes an entity node with its search keys and its pack.
func (q *NQuadWriter) WriteEntity(e graph.Entity) error {
	n := label(string(e.Name))
	q.str(n, "pg.name", string(e.Name))
	q.str(n, "dgraph.type", "Entity")
	q.str(n, "pg.kind", string(e.Kind))
	q.str(n, "pg.display_name", e.DisplayName)
	q.str(n, "pg.description", e.Description)
	q.str(n, "pg.valid_from", e.ValidFrom.String())
	q.str(n, "pg.valid_to", e.ValidTo.String())
	if life := e.Lifetime(); life.Start != graph.OpenPeriod.Start {
		q.typed(n, "pg.start_day", strconv.Itoa(life.Start), "int")
	}
	if life := e.Lifetime(); life.End != graph.OpenPeriod.End {
		q.typed(n, "pg.end_day", strconv.Itoa(life.End), "int")
	}
	for _, a := range e.Aliases {
		q.str(n, "pg.aliases", a)
	}
	for _, k := range e.SearchKeys() {
		q.str(n, "pg.search_keys", k)
	}
	for _, t := range e.SearchTokens() {
		q.str(n, "pg.search_tokens", t)
	}
	q.str(n, "pg.identifiers", identifiersJSON(e.Identifiers))
	q.str(n, "pg.attributes", attributesJSON(e.Attributes))
	q.str(n, "pg.alias_order", aliasOrder(e.Aliases))
	for _, t := range idTokens(e.Identifiers) {
		q.str(n, "pg.ids", t)
	}
	q.str(n, "pg.ocd_id", e.Identifiers.First("ocd"))
	q.typed(n, "pg.changed", "1", "int")
	pack, _ := packEntity(e, 1)
	q.str(n, "pg.pack", pack)
	q.pack(EntityPack, string(e.Name), pack)
	return q.emit()
}

// WriteRelation writes a relation node, its derived period, support and pack, and a node for each claim.
// The whole file is one write: the graph's version is 1 and every relation and source was changed at
// version 1. A relation is written whole, once.
func (q *NQuadWriter) WriteRelation(r graph.Relation) error {
	if !q.meta {
		m := label(metaName)
		q.str(m, "pg.name", metaName)
		q.str(m, "dgraph.type", "Meta")
		q.typed(m, "pg.version", "1", "int")
		q.str(m, "pg.bulk_id", q.bulk)
		// No change per resource: one change says the graph was loaded whole at version 1, so that a
		// watcher of the change log reads it whole (graph.ActionLoad), dated when the N-Quads were written.
		set, c := "_:bulkchangeset", "_:bulkchange"
		q.str(set, "dgraph.type", "ChangeSet")
		q.str(set, "pg.change_principal", "local (dgraph bulk)")
		q.str(set, "pg.change_by", "local")
		q.str(set, "pg.change_method", "LoadNQuads")
		q.str(c, "dgraph.type", "Change")
		q.edge(c, "pg.change_set", set)
		q.typed(c, "pg.change_at", strconv.FormatInt(time.Now().UnixMilli(), 10), "int")
		q.typed(c, "pg.change_version", "1", "int")
		q.str(c, "pg.change_resource", "graph")
		q.str(c, "pg.change_action", graph.ActionLoad)
		q.str(c, "pg.change_after", `{"record":"load"}`)
		q.meta = true
	}
	n := label(string(r.Name))
	q.str(n, "pg.name", string(r.Name))
	q.str(n, "dgraph.type", "Relation")
	q.str(n, "pg.rel_type", string(r.Type))
	q.edge(n, "pg.from", label(string(r.From)))
	q.edge(n, "pg.to", label(string(r.To)))
	q.str(n, "pg.role", r.Role)
	q.str(n, "pg.dates_from", r.DatesFrom)
	if r.Via != "" {
		q.edge(n, "pg.via", label(string(r.Via)))
	}
	if r.Term != "" {
		q.edge(n, "pg.term", label(string(r.Term)))
	}
	q.str(n, "pg.valid_from", r.ValidFrom.String())
	q.str(n, "pg.valid_to", r.ValidTo.String())
	q.str(n, "pg.date", r.Date.String())
	p := r.Period()
	if p.Start != graph.OpenPeriod.Start {
		q.typed(n, "pg.start_day", strconv.Itoa(p.Start), "int")
	}
	if p.End != graph.OpenPeriod.End {
		q.typed(n, "pg.end_day", strconv.Itoa(p.End), "int")
	}
	q.str(n, "pg.support", encodeSupport(r.Claims))
	q.typed(n, "pg.changed", "1", "int")
	pack := packRelation(r, 1)
	q.str(n, "pg.pack", pack)
	q.pack(RelationPack, string(r.Name), pack)
	for _, c := range r.Claims {
		cn := label(c.Name)
		q.str(cn, "pg.name", c.Name)
		q.str(cn, "dgraph.type", "Claim")
		q.edge(cn, "pg.claim_of", n)
		q.edge(cn, "pg.source", label(string(c.Source.Name)))
		q.str(cn, "pg.excerpt", c.Excerpt)
		q.str(cn, "pg.record", c.Record)
		q.typed(cn, "pg.confidence", strconv.FormatFloat(c.Confidence, 'g', -1, 64), "float")
		q.str(cn, "pg.status", string(c.Status))
		if c.SaidBy != "" {
			q.edge(cn, "pg.said_by", label(string(c.SaidBy)))
		}
	}
	return q.emit()
}
