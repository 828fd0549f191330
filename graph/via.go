package graph

import (
	"context"
	"strings"
)

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
