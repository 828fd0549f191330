package dgraph

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
)

// Saved views are nodes of type View (schema.dql), found by pg.view_name; like keys they have no pg.name,
// so nothing that reads or writes the graph by resource name reaches them, and no write of one raises
// the graph's version. Each create, update and delete goes into the audit trail (a Change on views/<id>,
// without a graph version), in the same transaction.

var _ graph.Views = (*Store)(nil)

// viewFields are what a read of a view asks for.
const viewFields = `uid pg.view_name pg.view_title pg.view_description pg.view_query pg.view_notes pg.view_story
  pg.view_story_order pg.view_created_by pg.view_created_at pg.view_updated_by pg.view_updated_at pg.view_etag`

// viewJSON is a view as Dgraph holds it.
type viewJSON struct {
	UID         string `json:"uid"`
	Name        string `json:"pg.view_name"`
	Title       string `json:"pg.view_title"`
	Description string `json:"pg.view_description"`
	Query       string `json:"pg.view_query"`
	Notes       string `json:"pg.view_notes"`
	Story       string `json:"pg.view_story"`
	StoryOrder  int32  `json:"pg.view_story_order"`
	CreatedBy   string `json:"pg.view_created_by"`
	CreatedAt   int64  `json:"pg.view_created_at"`
	UpdatedBy   string `json:"pg.view_updated_by"`
	UpdatedAt   int64  `json:"pg.view_updated_at"`
	Etag        string `json:"pg.view_etag"`
}

// noteJSON is a note as pg.view_notes holds it, and as the trail shows it.
type noteJSON struct {
	Target string `json:"target"`
	Text   string `json:"text"`
}

func (r viewJSON) view(op string) (graph.SavedView, error) {
	v := graph.SavedView{Name: graph.ViewName(r.Name), Title: r.Title, Description: r.Description, Query: r.Query,
		Story: r.Story, StoryOrder: r.StoryOrder, CreatedBy: r.CreatedBy, UpdatedBy: r.UpdatedBy,
		Created: time.UnixMilli(r.CreatedAt).UTC(), Updated: time.UnixMilli(r.UpdatedAt).UTC(), Etag: r.Etag}
	if r.Notes != "" {
		var ns []noteJSON
		if err := json.Unmarshal([]byte(r.Notes), &ns); err != nil {
			return v, &graph.Error{Op: op, Kind: graph.Internal, Message: "the notes of " + r.Name + " cannot be read", Err: err}
		}
		for _, n := range ns {
			v.Notes = append(v.Notes, graph.ViewNote(n))
		}
	}
	return v, nil
}

// viewNode is the mutation that sets v on the node uid, and the deletion of the optional values v lacks.
func viewNode(uid string, v graph.SavedView) (map[string]any, string) {
	n := map[string]any{"uid": uid, "dgraph.type": "View", "pg.view_name": string(v.Name), "pg.view_title": v.Title,
		"pg.view_query": v.Query, "pg.view_story_order": int64(v.StoryOrder),
		"pg.view_created_by": v.CreatedBy, "pg.view_created_at": v.Created.UnixMilli(),
		"pg.view_updated_by": v.UpdatedBy, "pg.view_updated_at": v.Updated.UnixMilli(), "pg.view_etag": v.Etag}
	var del strings.Builder
	optional := func(pred, val string) {
		if val != "" {
			n[pred] = val
		} else if !strings.HasPrefix(uid, "_:") {
			del.WriteString("<" + uid + "> <" + pred + "> * .\n")
		}
	}
	optional("pg.view_description", v.Description)
	optional("pg.view_story", v.Story)
	optional("pg.view_notes", notesJSON(v.Notes))
	return n, del.String()
}

func notesJSON(ns []graph.ViewNote) string {
	if len(ns) == 0 {
		return ""
	}
	out := make([]noteJSON, len(ns))
	for i, n := range ns {
		out[i] = noteJSON(n)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// viewRecord is a view as the trail shows it: what its writer gave, and its etag.
func viewRecord(v graph.SavedView) string {
	rec := struct {
		Name        string     `json:"name"`
		Title       string     `json:"title"`
		Description string     `json:"description,omitempty"`
		Query       string     `json:"query"`
		Notes       []noteJSON `json:"notes,omitempty"`
		Story       string     `json:"story,omitempty"`
		StoryOrder  int32      `json:"story_order,omitempty"`
		Etag        string     `json:"etag"`
	}{Name: string(v.Name), Title: v.Title, Description: v.Description, Query: v.Query, Story: v.Story, StoryOrder: v.StoryOrder, Etag: v.Etag}
	for _, n := range v.Notes {
		rec.Notes = append(rec.Notes, noteJSON(n))
	}
	b, _ := json.Marshal(rec)
	return string(b)
}

// decodeViews reads the views of a query's block.
func decodeViews(op string, raw []byte, block string) ([]graph.SavedView, []viewJSON, error) {
	var res map[string][]viewJSON
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, nil, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
	}
	var out []graph.SavedView
	for _, r := range res[block] {
		v, err := r.view(op)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, v)
	}
	return out, res[block], nil
}

// CreateView implements graph.Views. Two views created at once under one name conflict in Dgraph (the
// name is @upsert): the one retried finds the name taken, and takes the next one free when its id is
// made from its title.
func (s *Store) CreateView(ctx context.Context, v graph.SavedView, id string) (graph.SavedView, error) {
	const op = "dgraph.CreateView"
	kept, err := graph.PrepareNewView(op, v, id)
	if err != nil {
		return graph.SavedView{}, err
	}
	base := graph.ViewIDFromTitle(kept.Title)
	err = s.keyTxn(ctx, op, func(txn writeTxn) error {
		name := kept.Name
		if id != "" {
			taken, err := viewsTaken(ctx, op, txn, []string{string(name)})
			if err != nil {
				return err
			}
			if taken[string(name)] {
				return graph.ViewExists(op, name)
			}
		} else {
			const batch = 50
			for from := 1; name == "" && from <= 10_000; from += batch {
				var names []string
				for _, c := range graph.ViewIDCandidates(base, from, batch) {
					names = append(names, string(graph.ViewNameOf(c)))
				}
				taken, err := viewsTaken(ctx, op, txn, names)
				if err != nil {
					return err
				}
				for _, n := range names {
					if !taken[n] {
						name = graph.ViewName(n)
						break
					}
				}
			}
			if name == "" {
				return graph.ErrNoFreeViewID(op, base)
			}
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		by := graph.ViewAuthor(ctx)
		made := kept
		made.Name, made.CreatedBy, made.UpdatedBy, made.Created, made.Updated, made.Etag = name, by, by, now, now, graph.NewViewEtag()
		n, _ := viewNode("_:view", made)
		nodes := append([]map[string]any{n}, keyChange(ctx, "CreateView",
			graph.Change{Resource: string(name), Action: graph.ActionCreate, After: viewRecord(made)})...)
		set, err := setQuads(nodes)
		if err != nil {
			return err
		}
		if _, err := txn.Mutate(ctx, &api.Mutation{Set: set, CommitNow: true}); err != nil {
			return err
		}
		kept = made
		return nil
	})
	if err != nil {
		return graph.SavedView{}, err
	}
	return kept, nil
}

// viewsTaken reads which of the names are views', in txn.
func viewsTaken(ctx context.Context, op string, txn writeTxn, names []string) (map[string]bool, error) {
	q, vars := eqBlocks("pg.view_name", names, "pg.view_name")
	resp, err := txn.query(ctx, q, vars)
	if err != nil {
		return nil, err
	}
	_, rows, err := decodeViews(op, resp.Json, "q")
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, r := range rows {
		taken[r.Name] = true
	}
	return taken, nil
}

// viewIn reads the view named name in txn: NotFound when there is none.
func viewIn(ctx context.Context, op string, txn writeTxn, name graph.ViewName) (graph.SavedView, string, error) {
	q, vars := eqBlocks("pg.view_name", []string{string(name)}, viewFields)
	resp, err := txn.query(ctx, q, vars)
	if err != nil {
		return graph.SavedView{}, "", err
	}
	views, rows, err := decodeViews(op, resp.Json, "q")
	if err != nil {
		return graph.SavedView{}, "", err
	}
	for i, v := range views {
		if v.Name == name && uidPattern.MatchString(rows[i].UID) {
			return v, rows[i].UID, nil
		}
	}
	return graph.SavedView{}, "", graph.ViewNotFound(op, name)
}

// GetView implements graph.Views.
func (s *Store) GetView(ctx context.Context, name graph.ViewName) (graph.SavedView, error) {
	const op = "dgraph.GetView"
	if _, err := graph.ParseViewName(op, "name", name); err != nil {
		return graph.SavedView{}, err
	}
	q, vars := eqBlocks("pg.view_name", []string{string(name)}, viewFields)
	var raw json.RawMessage
	if err := s.query(ctx, op, q, vars, &raw); err != nil {
		return graph.SavedView{}, err
	}
	views, _, err := decodeViews(op, raw, "q")
	if err != nil {
		return graph.SavedView{}, err
	}
	for _, v := range views {
		if v.Name == name {
			return v, nil
		}
	}
	return graph.SavedView{}, graph.ViewNotFound(op, name)
}

// ListViews implements graph.Views. Dgraph orders the views (by the indexes on story order, title, name
// and creation time) and cuts the page.
func (s *Store) ListViews(ctx context.Context, q graph.ViewQuery) ([]graph.SavedView, int, error) {
	const op = "dgraph.ListViews"
	q, err := q.Validate(op)
	if err != nil {
		return nil, 0, err
	}
	vars := map[string]string{"$first": strconv.Itoa(q.Limit + 1), "$offset": strconv.Itoa(q.Offset)}
	dq := `query q($first: int, $offset: int) {
  q(func: has(pg.view_name), orderdesc: pg.view_created_at, orderasc: pg.view_name, first: $first, offset: $offset) { ` + viewFields + ` }
}`
	if q.Story != "" {
		vars["$story"] = q.Story
		dq = `query q($story: string, $first: int, $offset: int) {
  q(func: eq(pg.view_story, $story), orderasc: pg.view_story_order, orderasc: pg.view_title, orderasc: pg.view_name, first: $first, offset: $offset) { ` + viewFields + ` }
}`
	}
	var raw json.RawMessage
	if err := s.query(ctx, op, dq, vars, &raw); err != nil {
		return nil, 0, err
	}
	views, _, err := decodeViews(op, raw, "q")
	if err != nil {
		return nil, 0, err
	}
	next := 0
	if len(views) > q.Limit {
		views, next = views[:q.Limit], q.Offset+q.Limit
	}
	return views, next, nil
}

// UpdateView implements graph.Views. Two updates of one view at once conflict in Dgraph (both set its
// etag): the one retried reads the other's etag, and is Aborted when it was given the one before.
func (s *Store) UpdateView(ctx context.Context, v graph.SavedView, fields []string, etag string) (graph.SavedView, error) {
	const op = "dgraph.UpdateView"
	if _, err := graph.ParseViewName(op, "view.name", v.Name); err != nil {
		return graph.SavedView{}, err
	}
	fields, err := graph.CheckViewFields(op, fields)
	if err != nil {
		return graph.SavedView{}, err
	}
	var out graph.SavedView
	err = s.keyTxn(ctx, op, func(txn writeTxn) error {
		old, uid, err := viewIn(ctx, op, txn, v.Name)
		if err != nil {
			return err
		}
		if err := graph.CheckEtag(op, v.Name, etag, old.Etag); err != nil {
			return err
		}
		kept, err := graph.PrepareView(op, graph.ApplyViewFields(old, v, fields))
		if err != nil {
			return err
		}
		kept.Name, kept.CreatedBy, kept.Created = old.Name, old.CreatedBy, old.Created
		kept.UpdatedBy, kept.Updated, kept.Etag = graph.ViewAuthor(ctx), time.Now().UTC().Truncate(time.Millisecond), graph.NewViewEtag()
		n, del := viewNode(uid, kept)
		nodes := append([]map[string]any{n}, keyChange(ctx, "UpdateView",
			graph.Change{Resource: string(kept.Name), Action: graph.ActionUpdate, Before: viewRecord(old), After: viewRecord(kept)})...)
		set, err := setQuads(nodes)
		if err != nil {
			return err
		}
		if _, err := txn.Mutate(ctx, &api.Mutation{Set: set, DelNquads: []byte(del), CommitNow: true}); err != nil {
			return err
		}
		out = kept
		return nil
	})
	if err != nil {
		return graph.SavedView{}, err
	}
	return out, nil
}

// DeleteView implements graph.Views: the node loses every value, its type too.
func (s *Store) DeleteView(ctx context.Context, name graph.ViewName, etag string) error {
	const op = "dgraph.DeleteView"
	if _, err := graph.ParseViewName(op, "name", name); err != nil {
		return err
	}
	return s.keyTxn(ctx, op, func(txn writeTxn) error {
		old, uid, err := viewIn(ctx, op, txn, name)
		if err != nil {
			return err
		}
		if err := graph.CheckEtag(op, name, etag, old.Etag); err != nil {
			return err
		}
		set, err := setQuads(keyChange(ctx, "DeleteView", graph.Change{Resource: string(name), Action: graph.ActionDelete, Before: viewRecord(old)}))
		if err != nil {
			return err
		}
		del := "<" + uid + "> * * .\n<" + uid + "> <dgraph.type> * .\n"
		_, err = txn.Mutate(ctx, &api.Mutation{Set: set, DelNquads: []byte(del), CommitNow: true})
		return err
	})
}
