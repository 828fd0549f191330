package service

import (
	"context"

	"github.com/polgraph/polgraph/graph"
)

// withVia is a LinkSource that adds via links to another's links.
type withVia struct {
	src graph.LinkSource
	via graph.ViaLinker
}

func (w withVia) Links(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	var links, vias map[graph.EntityName][]graph.Link
	err := parallel(
		func() (err error) { links, err = w.src.Links(ctx, entities); return err },
		func() (err error) { vias, err = w.via.ViaLinks(ctx, entities); return err },
	)
	if err != nil {
		return nil, err
	}
	if links == nil {
		links = map[graph.EntityName][]graph.Link{}
	}
	for n, ls := range vias {
		links[n] = append(links[n], ls...)
	}
	return links, nil
}

// followVia returns src with via links added, when the store gives them.
func (s *Service) followVia(src graph.LinkSource) (graph.LinkSource, error) {
	v, ok := s.Store.(graph.ViaLinker)
	if !ok {
		return nil, &graph.Error{Op: "service.FollowVia", Kind: graph.Internal, Message: "this store cannot follow vias"}
	}
	return withVia{src: src, via: v}, nil
}

// splitViaSteps renames the via links of paths to their relations, marking their steps.
func splitViaSteps(paths []graph.Path) {
	for _, p := range paths {
		for _, h := range p.Hops {
			for i, st := range h.Relations {
				if r, ok := graph.SplitViaLink(st.Relation); ok {
					h.Relations[i] = graph.PathStep{Relation: r, Forward: st.Forward, Via: true}
				}
			}
		}
	}
}
