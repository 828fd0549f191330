package memstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// CreateView implements graph.Views.
func (s *Store) CreateView(ctx context.Context, v graph.SavedView, id string) (graph.SavedView, error) {
	const op = "memstore.CreateView"
	if err := live(ctx, op); err != nil {
		return graph.SavedView{}, err
	}
	kept, err := graph.PrepareNewView(op, v, id)
	if err != nil {
		return graph.SavedView{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if kept.Name != "" {
		if _, taken := s.views[kept.Name]; taken {
			return graph.SavedView{}, graph.ViewExists(op, kept.Name)
		}
	} else {
		base := graph.ViewIDFromTitle(kept.Title)
		for i := 1; kept.Name == "" && i <= 10_000; i++ {
			if c := graph.ViewNameOf(graph.ViewIDCandidates(base, i, 1)[0]); s.views[c].Name == "" {
				kept.Name = c
			}
		}
		if kept.Name == "" {
			return graph.SavedView{}, graph.ErrNoFreeViewID(op, base)
		}
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	by := graph.ViewAuthor(ctx)
	kept.CreatedBy, kept.UpdatedBy, kept.Created, kept.Updated, kept.Etag = by, by, now, now, graph.NewViewEtag()
	s.views[kept.Name] = kept
	return copyView(kept), nil
}

// GetView implements graph.Views.
func (s *Store) GetView(ctx context.Context, name graph.ViewName) (graph.SavedView, error) {
	const op = "memstore.GetView"
	if err := live(ctx, op); err != nil {
		return graph.SavedView{}, err
	}
	if _, err := graph.ParseViewName(op, "name", name); err != nil {
		return graph.SavedView{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.views[name]
	if !ok {
		return graph.SavedView{}, graph.ViewNotFound(op, name)
	}
	return copyView(v), nil
}

// ListViews implements graph.Views.
func (s *Store) ListViews(ctx context.Context, q graph.ViewQuery) ([]graph.SavedView, int, error) {
	const op = "memstore.ListViews"
	if err := live(ctx, op); err != nil {
		return nil, 0, err
	}
	q, err := q.Validate(op)
	if err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	var all []graph.SavedView
	for _, v := range s.views {
		if q.Story == "" || v.Story == q.Story {
			all = append(all, copyView(v))
		}
	}
	s.mu.RUnlock()
	if q.Story != "" {
		slices.SortFunc(all, func(a, b graph.SavedView) int {
			return cmp.Or(cmp.Compare(a.StoryOrder, b.StoryOrder), strings.Compare(a.Title, b.Title), strings.Compare(string(a.Name), string(b.Name)))
		})
	} else {
		slices.SortFunc(all, func(a, b graph.SavedView) int {
			return cmp.Or(b.Created.Compare(a.Created), strings.Compare(string(a.Name), string(b.Name)))
		})
	}
	start, end, next := graph.PageBounds(len(all), q.Offset, q.Limit)
	return all[start:end], next, nil
}

// UpdateView implements graph.Views.
func (s *Store) UpdateView(ctx context.Context, v graph.SavedView, fields []string, etag string) (graph.SavedView, error) {
	const op = "memstore.UpdateView"
	if err := live(ctx, op); err != nil {
		return graph.SavedView{}, err
	}
	if _, err := graph.ParseViewName(op, "view.name", v.Name); err != nil {
		return graph.SavedView{}, err
	}
	fields, err := graph.CheckViewFields(op, fields)
	if err != nil {
		return graph.SavedView{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.views[v.Name]
	if !ok {
		return graph.SavedView{}, graph.ViewNotFound(op, v.Name)
	}
	if err := graph.CheckEtag(op, v.Name, etag, old.Etag); err != nil {
		return graph.SavedView{}, err
	}
	kept, err := graph.PrepareView(op, graph.ApplyViewFields(old, v, fields))
	if err != nil {
		return graph.SavedView{}, err
	}
	kept.Name, kept.CreatedBy, kept.Created = old.Name, old.CreatedBy, old.Created
	kept.UpdatedBy, kept.Updated, kept.Etag = graph.ViewAuthor(ctx), time.Now().UTC().Truncate(time.Millisecond), graph.NewViewEtag()
	s.views[kept.Name] = kept
	return copyView(kept), nil
}

// DeleteView implements graph.Views.
func (s *Store) DeleteView(ctx context.Context, name graph.ViewName, etag string) error {
	const op = "memstore.DeleteView"
	if err := live(ctx, op); err != nil {
		return err
	}
	if _, err := graph.ParseViewName(op, "name", name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.views[name]
	if !ok {
		return graph.ViewNotFound(op, name)
	}
	if err := graph.CheckEtag(op, name, etag, old.Etag); err != nil {
		return err
	}
	delete(s.views, name)
	return nil
}

func copyView(v graph.SavedView) graph.SavedView {
	v.Notes = slices.Clone(v.Notes)
	return v
}
