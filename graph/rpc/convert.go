package rpc

import (
	"strings"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// Enum values are the domain's names with the proto enum's prefix: graph.Endorses is
// RELATION_TYPE_ENDORSES.

func relationTypePB(t graph.RelationType) pb.RelationType {
	return pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+string(t)])
}

func relationTypeOf(t pb.RelationType) (graph.RelationType, bool) {
	rt := graph.RelationType(strings.TrimPrefix(t.String(), "RELATION_TYPE_"))
	return rt, rt.Valid()
}

func kindPB(k graph.Kind) pb.EntityKind {
	return pb.EntityKind(pb.EntityKind_value["ENTITY_KIND_"+string(k)])
}

func kindOf(k pb.EntityKind) (graph.Kind, bool) {
	if k == pb.EntityKind_ENTITY_KIND_UNSPECIFIED {
		return "", false
	}
	name, ok := pb.EntityKind_name[int32(k)]
	return graph.Kind(strings.TrimPrefix(name, "ENTITY_KIND_")), ok
}

func statusPB(s graph.ClaimStatus) pb.ClaimStatus {
	return pb.ClaimStatus(pb.ClaimStatus_value["CLAIM_STATUS_"+string(s)])
}

func statusOf(s pb.ClaimStatus) (graph.ClaimStatus, bool) {
	cs := graph.ClaimStatus(strings.TrimPrefix(s.String(), "CLAIM_STATUS_"))
	return cs, cs.Index() >= 0
}

func sourceKindPB(k graph.SourceKind) pb.SourceKind {
	return pb.SourceKind(pb.SourceKind_value["SOURCE_KIND_"+string(k)])
}

func entityPB(e graph.Entity) *pb.Entity {
	return &pb.Entity{Name: string(e.Name), Kind: kindPB(e.Kind), DisplayName: e.DisplayName, Aliases: e.Aliases,
		Description: e.Description, Identifiers: e.Identifiers, ValidFrom: e.ValidFrom.String(), ValidTo: e.ValidTo.String()}
}

func relationPB(r graph.Relation) *pb.Relation {
	out := &pb.Relation{Name: string(r.Name), Type: relationTypePB(r.Type), From: string(r.From), To: string(r.To),
		Role: r.Role, Via: string(r.Via), ValidFrom: r.ValidFrom.String(), ValidTo: r.ValidTo.String(),
		Date: r.Date.String(), Symmetric: r.Type.Symmetric()}
	for _, c := range r.Claims {
		src := c.Source
		out.Claims = append(out.Claims, &pb.Claim{Name: c.Name, Excerpt: c.Excerpt, Confidence: c.Confidence,
			Status: statusPB(c.Status), SaidBy: string(c.SaidBy),
			Source: &pb.Source{Name: string(src.Name), Title: src.Title, Kind: sourceKindPB(src.Kind), Outlet: src.Outlet,
				Author: src.Author, Published: src.Published.String(), Url: src.URL}})
	}
	return out
}
