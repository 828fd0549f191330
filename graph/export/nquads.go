package export

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// The IRIs N-Quads are written under.
const (
	// BaseIRI prefixes a resource name to make its IRI: https://polgraph.org/id/actors/lutfur-rahman.
	BaseIRI = "https://polgraph.org/id/"
	// VocabIRI is polgraph's vocabulary (pg:), e.g. https://polgraph.org/ns#excerpt.
	VocabIRI = "https://polgraph.org/ns#"
)

// Other vocabularies.
const (
	rdfNS     = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	rdfsNS    = "http://www.w3.org/2000/01/rdf-schema#"
	xsdNS     = "http://www.w3.org/2001/XMLSchema#"
	owlNS     = "http://www.w3.org/2002/07/owl#"
	skosNS    = "http://www.w3.org/2004/02/skos/core#"
	dctermsNS = "http://purl.org/dc/terms/"
	schemaNS  = "https://schema.org/"
	wikidata  = "http://www.wikidata.org/entity/"
)

// kindClass is the pg: class of each entity kind, and schemaClass its schema.org class where one fits (a
// seat is a constituency or an office, so none does).
var (
	kindClass = map[graph.Kind]string{
		graph.KindActor: "Actor", graph.KindParty: "Party", graph.KindSeat: "Seat", graph.KindOrganisation: "Organisation",
	}
	schemaClass = map[graph.Kind]string{
		graph.KindActor: "Person", graph.KindParty: "Organization", graph.KindOrganisation: "Organization",
	}
)

var (
	langTag      = regexp.MustCompile(`^[a-zA-Z]+(-[a-zA-Z0-9]+)*$`)
	wikidataItem = regexp.MustCompile(`^[QPL][1-9][0-9]*$`)
)

// WriteNQuads writes g as RDF N-Quads, one statement a line. Entities, relations, claims and sources are
// IRIs under BaseIRI (BaseIRI + resource name; a claim without a name is a blank node), described with
// polgraph's vocabulary under VocabIRI (pg:) and common ones, in the default graph:
//
//   - an entity: rdf:type pg:Actor, pg:Party, pg:Seat or pg:Organisation (and schema:Person or
//     schema:Organization), rdfs:label its display name, skos:altLabel each alias (with its language
//     when it has one), dcterms:description, pg:identifier "scheme:value" for each id and owl:sameAs
//     the Wikidata entity for each wikidata id, pg:validFrom, pg:validTo, schema:birthDate,
//     schema:deathDate, schema:gender, schema:url and schema:image (links and images), schema:email,
//     schema:telephone and pg:contact ("type: value") for contact details, pg:deleted and pg:mergedInto;
//   - a relation, reified: rdf:type pg:Relation and rdf:Statement, pg:from, pg:to, pg:type (the IRI
//     pg:<TYPE>, e.g. pg:MEMBER_OF) with rdf:subject, rdf:predicate and rdf:object saying the same,
//     pg:role, pg:via, pg:term, pg:validFrom, pg:validTo, pg:date, pg:symmetric, pg:status (the best
//     status of its claims), pg:deleted, pg:mergedInto and pg:claim for each claim;
//   - a claim: rdf:type pg:Claim, pg:relation, pg:source, pg:excerpt, pg:record, pg:confidence
//     (xsd:decimal), pg:status ("CONFIRMED"...), pg:saidBy, pg:retracted;
//   - a source: rdf:type pg:Source, pg:kind, dcterms:title, dcterms:publisher (its outlet),
//     dcterms:creator (its author), dcterms:issued (published), pg:retrieved, dcterms:license and
//     schema:url.
//
// Dates are xsd:gYear, xsd:gYearMonth or xsd:date literals as precise as they were given; flags are
// xsd:boolean and written only when true.
//
// A relation that is not deleted and that a claim supports (not retracted, not DENIED) is also stated
// directly, `from pg:<TYPE> to`, in the named graph of the first source (by name) of those claims, whose
// graph name is that source's IRI; a symmetric relation is stated both ways. A relation that only denied
// or retracted claims back is not stated: no source says it holds.
func WriteNQuads(w io.Writer, g graph.Subgraph) error {
	if err := writeNQuads(w, prepare(g)); err != nil {
		return fmt.Errorf("export.WriteNQuads: %w", err)
	}
	return nil
}

// quadWriter writes N-Quads lines, keeping the first error.
type quadWriter struct {
	w   *bufio.Writer
	err error
	buf []byte
}

// term is an N-Quads term as written: <iri>, _:label or a literal.
type term string

// iri is the term for an absolute IRI, with what IRIREF does not allow percent-encoded.
func iri(s string) term { return term("<" + escapeIRI(s) + ">") }

// res is the IRI of a resource name.
func res[N ~string](name N) term { return iri(BaseIRI + string(name)) }

// pg is the IRI of a term of polgraph's vocabulary.
func pg(local string) term { return iri(VocabIRI + local) }

// literal is a plain string literal.
func literal(s string) term { return term(`"` + escapeLiteral(s) + `"`) }

// typed is a literal of an XML Schema datatype.
func typed(s, xsdType string) term { return literal(s) + "^^" + iri(xsdNS+xsdType) }

// langLiteral is a string literal with a language, or a plain one when lang is not a language tag.
func langLiteral(s, lang string) term {
	if lang == "" || !langTag.MatchString(lang) {
		return literal(s)
	}
	return literal(s) + term("@"+lang)
}

// dateLiteral is a fuzzy date as xsd:gYear, xsd:gYearMonth or xsd:date.
func dateLiteral(d graph.FuzzyDate) term {
	switch {
	case d.Month == 0:
		return typed(d.String(), "gYear")
	case d.Day == 0:
		return typed(d.String(), "gYearMonth")
	}
	return typed(d.String(), "date")
}

var trueLiteral = typed("true", "boolean")

// quad writes one statement; graphName "" is the default graph. Empty terms leave the statement out.
func (q *quadWriter) quad(s, p, o, graphName term) {
	if q.err != nil || s == "" || p == "" || o == "" {
		return
	}
	q.buf = q.buf[:0]
	q.buf = append(q.buf, s...)
	q.buf = append(q.buf, ' ')
	q.buf = append(q.buf, p...)
	q.buf = append(q.buf, ' ')
	q.buf = append(q.buf, o...)
	if graphName != "" {
		q.buf = append(q.buf, ' ')
		q.buf = append(q.buf, graphName...)
	}
	q.buf = append(q.buf, " .\n"...)
	_, q.err = q.w.Write(q.buf)
}

// text writes a plain literal unless s is empty.
func (q *quadWriter) text(s, p term, v string) {
	if v != "" {
		q.quad(s, p, literal(v), "")
	}
}

// ref writes a resource name's IRI unless it is empty.
func (q *quadWriter) ref(s, p term, name string) {
	if name != "" {
		q.quad(s, p, res(name), "")
	}
}

// date writes a date unless it is unknown.
func (q *quadWriter) date(s, p term, d graph.FuzzyDate) {
	if !d.IsZero() {
		q.quad(s, p, dateLiteral(d), "")
	}
}

// flag writes "true" when b is.
func (q *quadWriter) flag(s, p term, b bool) {
	if b {
		q.quad(s, p, trueLiteral, "")
	}
}

// link writes an address as an IRI when it is an absolute URL, else as a plain literal (a licence may be
// a name, "OGL v3.0").
func (q *quadWriter) link(s, p term, addr string) {
	if addr == "" {
		return
	}
	if u, err := url.Parse(addr); err == nil && u.IsAbs() {
		q.quad(s, p, iri(addr), "")
		return
	}
	q.text(s, p, addr)
}

func writeNQuads(w io.Writer, m model) error {
	q := &quadWriter{w: bufio.NewWriter(w)}
	rdfType := iri(rdfNS + "type")
	for _, n := range m.nodes {
		if n.bare {
			continue // nothing is known of it but its name, which the relations that refer to it hold
		}
		s := res(n.Name)
		if c, ok := kindClass[n.Kind]; ok {
			q.quad(s, rdfType, pg(c), "")
		}
		if c, ok := schemaClass[n.Kind]; ok {
			q.quad(s, rdfType, iri(schemaNS+c), "")
		}
		q.text(s, iri(rdfsNS+"label"), n.DisplayName)
		for _, a := range aliases(n.Entity) {
			q.quad(s, iri(skosNS+"altLabel"), langLiteral(a.Name, a.Lang), "")
		}
		q.text(s, iri(dctermsNS+"description"), n.Description)
		for _, id := range n.Identifiers.Pairs() {
			q.quad(s, pg("identifier"), literal(id.String()), "")
			if id.Scheme == "wikidata" && wikidataItem.MatchString(id.Value) {
				q.quad(s, iri(owlNS+"sameAs"), iri(wikidata+id.Value), "")
			}
		}
		q.date(s, pg("validFrom"), n.ValidFrom)
		q.date(s, pg("validTo"), n.ValidTo)
		a := n.Attributes
		q.date(s, iri(schemaNS+"birthDate"), a.BirthDate)
		q.date(s, iri(schemaNS+"deathDate"), a.DeathDate)
		q.text(s, iri(schemaNS+"gender"), a.Gender)
		for _, l := range a.Links {
			q.link(s, iri(schemaNS+"url"), l.URL)
		}
		for _, l := range a.Images {
			q.link(s, iri(schemaNS+"image"), l.URL)
		}
		for _, c := range a.ContactDetails {
			switch strings.ToLower(c.Type) {
			case "email":
				q.text(s, iri(schemaNS+"email"), c.Value)
			case "phone", "voice", "telephone":
				q.text(s, iri(schemaNS+"telephone"), c.Value)
			default:
				q.text(s, pg("contact"), c.Type+": "+c.Value)
			}
		}
		q.flag(s, pg("deleted"), !n.Deleted.IsZero())
		q.ref(s, pg("mergedInto"), string(n.MergedInto))
	}

	blank := 0
	for _, r := range m.edges {
		s, pred := res(r.Name), pg(string(r.Type))
		q.quad(s, rdfType, pg("Relation"), "")
		q.quad(s, rdfType, iri(rdfNS+"Statement"), "")
		q.ref(s, pg("from"), string(r.From))
		q.ref(s, pg("to"), string(r.To))
		q.quad(s, pg("type"), pred, "")
		q.ref(s, iri(rdfNS+"subject"), string(r.From))
		q.quad(s, iri(rdfNS+"predicate"), pred, "")
		q.ref(s, iri(rdfNS+"object"), string(r.To))
		q.text(s, pg("role"), r.Role)
		q.ref(s, pg("via"), string(r.Via))
		q.ref(s, pg("term"), string(r.Term))
		q.date(s, pg("validFrom"), r.ValidFrom)
		q.date(s, pg("validTo"), r.ValidTo)
		q.date(s, pg("date"), r.Date)
		q.flag(s, pg("symmetric"), r.Type.Symmetric())
		q.text(s, pg("status"), string(bestStatus(r)))
		q.flag(s, pg("deleted"), !r.Deleted.IsZero())
		q.ref(s, pg("mergedInto"), string(r.MergedInto))

		stated := ""
		for _, c := range r.Claims {
			var cs term
			if c.Name != "" {
				cs = res(c.Name)
			} else {
				blank++
				cs = term("_:claim" + strconv.Itoa(blank))
			}
			q.quad(s, pg("claim"), cs, "")
			q.quad(cs, rdfType, pg("Claim"), "")
			q.quad(cs, pg("relation"), s, "")
			q.ref(cs, pg("source"), string(c.Source.Name))
			q.text(cs, pg("excerpt"), c.Excerpt)
			q.text(cs, pg("record"), c.Record)
			if !math.IsNaN(c.Confidence) && !math.IsInf(c.Confidence, 0) {
				q.quad(cs, pg("confidence"), typed(strconv.FormatFloat(c.Confidence, 'f', -1, 64), "decimal"), "")
			}
			q.text(cs, pg("status"), string(c.Status))
			q.ref(cs, pg("saidBy"), string(c.SaidBy))
			q.flag(cs, pg("retracted"), !c.Retracted.IsZero())
			if c.Retracted.IsZero() && c.Status != graph.StatusDenied && c.Status.Index() >= 0 && c.Source.Name != "" &&
				(stated == "" || string(c.Source.Name) < stated) {
				stated = string(c.Source.Name)
			}
		}
		if stated != "" && r.Deleted.IsZero() && r.From != "" && r.To != "" {
			q.quad(res(r.From), pred, res(r.To), res(stated))
			if r.Type.Symmetric() && r.From != r.To {
				q.quad(res(r.To), pred, res(r.From), res(stated))
			}
		}
	}

	for _, src := range m.sources {
		s := res(src.Name)
		q.quad(s, rdfType, pg("Source"), "")
		q.text(s, pg("kind"), string(src.Kind))
		q.text(s, iri(dctermsNS+"title"), src.Title)
		q.text(s, iri(dctermsNS+"publisher"), src.Outlet)
		q.text(s, iri(dctermsNS+"creator"), src.Author)
		q.date(s, iri(dctermsNS+"issued"), src.Published)
		q.date(s, pg("retrieved"), src.Retrieved)
		q.link(s, iri(dctermsNS+"license"), src.Licence)
		q.link(s, iri(schemaNS+"url"), src.URL)
	}
	if q.err != nil {
		return q.err
	}
	return q.w.Flush()
}

// escapeIRI percent-encodes, as UTF-8 bytes, what an N-Quads IRIREF may not hold: controls, space and
// <>"{}|^`\. Invalid UTF-8 becomes U+FFFD.
func escapeIRI(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c == 0x7f || strings.IndexByte("<>\"{}|^`\\", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// escapeLiteral escapes a string for an N-Quads STRING_LITERAL_QUOTE: \\, \", \n and \r, and \uXXXX for
// every other control character (C0, DEL and C1). Invalid UTF-8 becomes U+FFFD.
func escapeLiteral(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default: // an invalid byte is utf8.RuneError, written as U+FFFD
			b.WriteRune(r)
		}
	}
	return b.String()
}
