package dgraph

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/polgraph/polgraph/graph"
)

// A graph written as N-Quads (NQuadWriter) for `dgraph bulk` is first read into memory by a fill that
// reads every node's pack from Dgraph: at a million relations about a minute on two cores, most of it the
// alpha's reads of a key a node (docs/bench-changes.md, items 39 and 46). The writer knows every pack it
// writes, so it can also give what that fill would read (BulkFill), for a file that a first start reads
// back instead (internal/snapfile). The N-Quads name their load on the graph's meta node (pg.bulk_id); such a
// file is read back only while Dgraph holds what that load wrote and nothing since (Store.Bulk).

// BulkFill gives, in batches, what a fill of the graph read from Dgraph (Store.Changes from version 0)
// gives once an NQuadWriter's output is loaded: each pack the writer writes (AddPack), or each record given
// to it through the same pack, is read back as the fill reads it. Records must come as the fill gives them: every source, then
// every entity, then every relation (dataset.Checked.InStageOrder); it fails otherwise, and for a record
// written without a pack (which a fill reads from its predicates), leaving the N-Quads as they are.
type BulkFill struct {
	each     func(graph.Changed) error
	stage    int // 0 sources, 1 entities, 2 relations
	sources  []graph.Source
	entities []graph.Entity
	rows     []packedRow
	ends     map[string]*endJSON
	counts   graph.GraphCounts
	err      error
}

// ErrNotInStageOrder is BulkFill's error for a source after an entity or a relation, or an entity after a
// relation.
var ErrNotInStageOrder = errors.New("records not in stage order: every source, then every entity, then every relation")

// NewBulkFill gives each batch to each, in order; an error of each stops it.
func NewBulkFill(each func(graph.Changed) error) *BulkFill {
	return &BulkFill{each: each, ends: map[string]*endJSON{}}
}

// Counts is how many nodes of each type the fill gave: what Dgraph holds by type once the N-Quads are
// loaded (Store.Bulk), deleted and retracted ones included.
func (b *BulkFill) Counts() graph.GraphCounts { return b.counts }

// BulkVersion is the version an NQuadWriter's graph is at, and every node of it was changed at.
const BulkVersion = 1

var bulkVersion int64 = BulkVersion // for packedRow.Changed

func (b *BulkFill) enter(stage int) error {
	if b.err != nil {
		return b.err
	}
	if stage < b.stage {
		b.err = ErrNotInStageOrder
		return b.err
	}
	for b.stage < stage {
		b.flush()
		b.stage++
	}
	return b.err
}

// flush gives what is held of the current stage as one batch.
func (b *BulkFill) flush() {
	if b.err != nil {
		return
	}
	switch b.stage {
	case 0:
		if len(b.sources) > 0 {
			b.err = b.each(graph.Changed{Sources: b.sources})
		}
		b.sources = nil
	case 1:
		if len(b.entities) > 0 {
			b.err = b.each(graph.Changed{Entities: b.entities})
		}
		b.entities = nil
	case 2:
		if len(b.rows) > 0 {
			c, unpacked := unpackPage(b.rows, b.ends, nil)
			if len(unpacked) > 0 {
				b.err = fmt.Errorf("%d relation(s) a fill would not read from their packs (an end that is not an entity of the files?)", len(unpacked))
				return
			}
			b.counts.Relations += len(c.Links)
			for _, h := range c.Headers {
				b.counts.Claims += len(h.Relation.Claims)
			}
			b.err = b.each(c)
		}
		b.rows = nil
	}
}

// WriteSource implements dataset.Sink: the source goes through its pack, as an NQuadWriter writes it.
func (b *BulkFill) WriteSource(s graph.Source) error {
	return b.AddPack(Pack{SourcePack, string(s.Name), packSource(s, bulkVersion)})
}

// WriteEntity implements dataset.Sink.
func (b *BulkFill) WriteEntity(e graph.Entity) error {
	pack, _ := packEntity(e, bulkVersion)
	return b.AddPack(Pack{EntityPack, string(e.Name), pack})
}

// WriteRelation implements dataset.Sink.
func (b *BulkFill) WriteRelation(r graph.Relation) error {
	return b.AddPack(Pack{RelationPack, string(r.Name), packRelation(r, bulkVersion)})
}

// AddPack adds the node an NQuadWriter wrote with pack p (NQuadWriter.OnPack).
func (b *BulkFill) AddPack(p Pack) error {
	if err := b.enter(int(p.Kind)); err != nil {
		return err
	}
	row := packedRow{Changed: &bulkVersion, Pack: p.Value}
	switch p.Kind {
	case SourcePack:
		j, _, ok := unpackSource(row)
		if !ok {
			b.err = fmt.Errorf("source %s: its pack cannot be read back", p.Name)
			return b.err
		}
		b.sources = append(b.sources, j.source())
		b.counts.Sources++
		if len(b.sources) == changesPage {
			b.flush()
		}
	case EntityPack:
		if p.Value == "" {
			b.err = fmt.Errorf("entity %s is written without a pack (an alias given twice, or empty), which a fill reads from its predicates", p.Name)
			return b.err
		}
		r, _, ok := unpackEntity(row)
		if !ok {
			b.err = fmt.Errorf("entity %s: its pack cannot be read back", p.Name)
			return b.err
		}
		e, err := r.entity()
		if err != nil {
			b.err = fmt.Errorf("entity %s: its pack cannot be read back: %w", p.Name, err)
			return b.err
		}
		b.entities = append(b.entities, e)
		b.ends[r.Name] = &endJSON{Name: r.Name, StartDay: r.StartDay, EndDay: r.EndDay}
		b.counts.Entities++
		if len(b.entities) == changesPage {
			b.flush()
		}
	default:
		b.rows = append(b.rows, row)
		if len(b.rows) == changesPage {
			b.flush()
		}
	}
	return b.err
}

// Close gives what is held and reports the first error met.
func (b *BulkFill) Close() error {
	b.enter(2)
	b.flush()
	return b.err
}

// newBulkID is the id an NQuadWriter gives its load.
func newBulkID() string { return "bulk-" + rand.Text() }

// Bulk says which N-Quads load the graph came from (its NQuadWriter's BulkID; "" for a graph not
// loaded so) and how many nodes of each type it holds, deleted and retracted ones included.
func (s *Store) Bulk(ctx context.Context) (id string, counts graph.GraphCounts, err error) {
	var res struct {
		Meta []struct {
			ID string `json:"pg.bulk_id"`
		}
		S, E, R, C []struct {
			N int `json:"count"`
		}
	}
	q := `query q($m: string) {
  meta(func: eq(pg.name, $m)) { pg.bulk_id }
  s(func: type(Source)) { count(uid) }
  e(func: type(Entity)) { count(uid) }
  r(func: type(Relation)) { count(uid) }
  c(func: type(Claim)) { count(uid) }
}`
	if err := s.query(ctx, "dgraph.Bulk", q, map[string]string{"$m": metaName}, &res); err != nil {
		return "", graph.GraphCounts{}, err
	}
	n := func(rows []struct {
		N int `json:"count"`
	}) int {
		if len(rows) == 0 {
			return 0
		}
		return rows[0].N
	}
	if len(res.Meta) == 1 {
		id = res.Meta[0].ID
	}
	return id, graph.GraphCounts{Sources: n(res.S), Entities: n(res.E), Relations: n(res.R), Claims: n(res.C)}, nil
}
