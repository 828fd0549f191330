package graph

import (
	"context"
	"strings"
)

// A relation with a via (the party a member sat for, the party of a candidacy) also joins its `from`
// end to that entity when a query asks to follow vias (PathQuery.FollowVia): an MP who sat for Scottish
// Labour is one hop from the party through the membership itself, with its role and term, without a
// second relation saying so. Path search walks such a join as a link of its own, named with viaSuffix so
// that it is numbered apart from the relation's own link; answers give the relation's name and say the
// hop went through its via (PathStep.Via).

// viaSuffix marks the name of a via link.
const viaSuffix = "#via"

// ViaLinkName names the link that joins a relation's `from` end to its via.
func ViaLinkName(r RelationName) RelationName { return r + viaSuffix }

// SplitViaLink returns the relation a via link belongs to, and whether name is one.
func SplitViaLink(name RelationName) (RelationName, bool) {
	r, ok := strings.CutSuffix(string(name), viaSuffix)
	return RelationName(r), ok
}

// ViaLinker gives, for entities, the via links that touch them: for each relation one of them is the
// `from` of that has a via, a link from it to the via; for each relation whose via one of them is, a link
// from the relation's `from` to it. Each link is named by ViaLinkName, has the relation's type, period
// and support, and is directed (from → via). A Store on Dgraph is one.
type ViaLinker interface {
	ViaLinks(ctx context.Context, entities []EntityName) (map[EntityName][]Link, error)
}

// withVia is a LinkSource that adds via links to another's links.
type withVia struct {
	src LinkSource
	via ViaLinker
}

func (w withVia) Links(ctx context.Context, entities []EntityName) (map[EntityName][]Link, error) {
	var links, vias map[EntityName][]Link
	err := parallel(
		func() (err error) { links, err = w.src.Links(ctx, entities); return err },
		func() (err error) { vias, err = w.via.ViaLinks(ctx, entities); return err },
	)
	if err != nil {
		return nil, err
	}
	if links == nil {
		links = map[EntityName][]Link{}
	}
	for n, ls := range vias {
		links[n] = append(links[n], ls...)
	}
	return links, nil
}

// followVia returns src with via links added, when the store gives them.
func (s *Service) followVia(src LinkSource) (LinkSource, error) {
	v, ok := s.Store.(ViaLinker)
	if !ok {
		return nil, &Error{Op: "FollowVia", Kind: Internal, Message: "this store cannot follow vias"}
	}
	return withVia{src: src, via: v}, nil
}

// splitViaSteps renames the via links of paths to their relations, marking their steps.
func splitViaSteps(paths []Path) {
	for _, p := range paths {
		for _, h := range p.Hops {
			for i, st := range h.Relations {
				if r, ok := SplitViaLink(st.Relation); ok {
					h.Relations[i] = PathStep{Relation: r, Forward: st.Forward, Via: true}
				}
			}
		}
	}
}
