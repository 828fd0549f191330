package rpc

import (
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// Enum values are the domain's names with the proto enum's prefix: graph.Endorses is
// RELATION_TYPE_ENDORSES. The tables below hold each enum by the domain's names, built once: an answer
// converts a type and statuses for every edge, and joining the prefix to each name allocated a string.

// enumByName maps the names of a proto enum (its generated _value map) to its values, without prefix.
func enumByName[E ~int32](prefix string, values map[string]int32) map[string]E {
	out := make(map[string]E, len(values))
	for name, v := range values {
		if s, ok := strings.CutPrefix(name, prefix); ok {
			out[s] = E(v)
		}
	}
	return out
}

var (
	relationTypes = enumByName[pb.RelationType]("RELATION_TYPE_", pb.RelationType_value)
	entityKinds   = enumByName[pb.EntityKind]("ENTITY_KIND_", pb.EntityKind_value)
	claimStatuses = enumByName[pb.ClaimStatus]("CLAIM_STATUS_", pb.ClaimStatus_value)
	sourceKinds   = enumByName[pb.SourceKind]("SOURCE_KIND_", pb.SourceKind_value)
)

// relationTypePB, like the other conversions to an enum, gives the enum's UNSPECIFIED to a name it
// does not hold.
func relationTypePB(t graph.RelationType) pb.RelationType { return relationTypes[string(t)] }

func relationTypeOf(t pb.RelationType) (graph.RelationType, bool) {
	rt := graph.RelationType(strings.TrimPrefix(t.String(), "RELATION_TYPE_"))
	return rt, rt.Valid()
}

func kindPB(k graph.Kind) pb.EntityKind {
	return entityKinds[string(k)]
}

func kindOf(k pb.EntityKind) (graph.Kind, bool) {
	if k == pb.EntityKind_ENTITY_KIND_UNSPECIFIED {
		return "", false
	}
	name, ok := pb.EntityKind_name[int32(k)]
	return graph.Kind(strings.TrimPrefix(name, "ENTITY_KIND_")), ok
}

func statusPB(s graph.ClaimStatus) pb.ClaimStatus {
	return claimStatuses[string(s)]
}

func statusOf(s pb.ClaimStatus) (graph.ClaimStatus, bool) {
	cs := graph.ClaimStatus(strings.TrimPrefix(s.String(), "CLAIM_STATUS_"))
	return cs, cs.Index() >= 0
}

func sourceKindPB(k graph.SourceKind) pb.SourceKind {
	return sourceKinds[string(k)]
}

func entityPB(e graph.Entity) *pb.Entity {
	a := e.Attributes
	out := &pb.Entity{Name: string(e.Name), Kind: kindPB(e.Kind), DisplayName: e.DisplayName, Aliases: e.Aliases,
		Description: e.Description, ValidFrom: e.ValidFrom.String(), ValidTo: e.ValidTo.String(),
		Deleted: tombstonePB(e.Deleted), MergedInto: string(e.MergedInto),
		BirthDate: a.BirthDate.String(), DeathDate: a.DeathDate.String(), Gender: a.Gender, DatesFrom: a.DatesFrom}
	for _, id := range e.Identifiers.Pairs() {
		if out.Identifiers == nil {
			out.Identifiers = map[string]string{}
		}
		if _, ok := out.Identifiers[id.Scheme]; !ok {
			out.Identifiers[id.Scheme] = id.Value
		}
		out.AllIdentifiers = append(out.AllIdentifiers, &pb.Identifier{Scheme: id.Scheme, Value: id.Value})
	}
	for _, l := range a.Links {
		out.Links = append(out.Links, &pb.WebLink{Url: l.URL, Note: l.Note})
	}
	for _, l := range a.Images {
		out.Images = append(out.Images, &pb.WebLink{Url: l.URL, Note: l.Note})
	}
	for _, c := range a.ContactDetails {
		out.ContactDetails = append(out.ContactDetails, &pb.ContactDetail{Type: c.Type, Value: c.Value, Note: c.Note})
	}
	for _, o := range a.OtherNames {
		out.OtherNames = append(out.OtherNames, &pb.OtherName{Name: o.Name, Lang: o.Lang, Note: o.Note})
	}
	return out
}

// tombstonePB is nil when there is no tombstone.
func tombstonePB(t graph.Tombstone) *pb.Tombstone {
	if t.IsZero() {
		return nil
	}
	return &pb.Tombstone{Time: timestamppb.New(t.Time), By: t.By, Reason: t.Reason}
}

func relationPB(r graph.Relation) *pb.Relation {
	out := &pb.Relation{Name: string(r.Name), Type: relationTypePB(r.Type), From: string(r.From), To: string(r.To),
		Role: r.Role, Via: string(r.Via), Term: string(r.Term), ValidFrom: r.ValidFrom.String(), ValidTo: r.ValidTo.String(),
		Date: r.Date.String(), Symmetric: r.Type.Symmetric(), Undated: !r.Dated(), Verdict: verdictPB(graph.VerdictOf(r.Claims)),
		Deleted: tombstonePB(r.Deleted), DatesFrom: r.DatesFrom}
	for _, c := range r.Claims {
		src := c.Source
		out.Claims = append(out.Claims, &pb.Claim{Name: c.Name, Excerpt: c.Excerpt, RecordId: c.Record, Confidence: c.Confidence,
			Status: statusPB(c.Status), SaidBy: string(c.SaidBy), Retracted: tombstonePB(c.Retracted),
			Source: &pb.Source{Name: string(src.Name), Title: src.Title, Kind: sourceKindPB(src.Kind), Outlet: src.Outlet,
				Author: src.Author, Published: src.Published.String(), Url: src.URL,
				Retrieved: src.Retrieved.String(), Licence: src.Licence}})
	}
	return out
}

func verdictPB(v graph.Verdict) *pb.Verdict {
	out := &pb.Verdict{}
	setVerdictPB(out, v)
	return out
}

func setVerdictPB(out *pb.Verdict, v graph.Verdict) {
	out.SupportingClaims, out.DenyingClaims = int32(v.Supporting()), int32(v.Denying())
	out.SupportingSources, out.DenyingSources, out.Summary = int32(v.SupportingSources), int32(v.DenyingSources), v.String()
}

// hopPB is a hop with its relations (from rels, which holds every relation of the answer) in hop order:
// the first as the hop's relation, the others as parallel ones; the verdict is over all their claims.
func hopPB(h graph.Hop, rels map[graph.RelationName]graph.Relation) *pb.Hop {
	out := &pb.Hop{}
	var claims []graph.Claim
	for i, st := range h.Relations {
		r := rels[st.Relation]
		claims = append(claims, r.Claims...)
		if i == 0 {
			out.Relation, out.Forward, out.ThroughVia = relationPB(r), st.Forward, st.Via
			continue
		}
		out.Parallel = append(out.Parallel, &pb.HopRelation{Relation: relationPB(r), Forward: st.Forward, ThroughVia: st.Via})
	}
	out.Verdict = verdictPB(graph.VerdictOf(claims))
	return out
}

// dateRangePB writes a period as days, open ends empty.
func dateRangePB(p graph.Period) *pb.DateRange {
	out := &pb.DateRange{}
	if p.Start != graph.OpenPeriod.Start {
		out.From = graph.DayString(p.Start)
	}
	if p.End != graph.OpenPeriod.End {
		out.To = graph.DayString(p.End)
	}
	return out
}

func sourceKindOf(k pb.SourceKind) (graph.SourceKind, bool) {
	name, ok := pb.SourceKind_name[int32(k)]
	sk := graph.SourceKind(strings.TrimPrefix(name, "SOURCE_KIND_"))
	return sk, ok && k != pb.SourceKind_SOURCE_KIND_UNSPECIFIED
}

func sourcePB(s graph.Source) *pb.Source {
	return &pb.Source{Name: string(s.Name), Title: s.Title, Kind: sourceKindPB(s.Kind), Outlet: s.Outlet,
		Author: s.Author, Published: s.Published.String(), Url: s.URL, Retrieved: s.Retrieved.String(), Licence: s.Licence}
}

func relationRefPB(r graph.RelationRef) *pb.RelationRef {
	return &pb.RelationRef{Name: string(r.Name), Type: relationTypePB(r.Type), From: string(r.From), To: string(r.To),
		Symmetric: r.Type.Symmetric()}
}

func sourceClaimPB(c graph.SourceClaim) *pb.SourceClaim {
	return &pb.SourceClaim{Name: c.Claim.Name, Status: statusPB(c.Claim.Status), Confidence: c.Claim.Confidence,
		Excerpt: c.Claim.Excerpt, SaidBy: string(c.Claim.SaidBy), Relation: relationRefPB(c.Relation)}
}

// edgesPB converts relations drawn between two entities, without their claims (nil for none). A
// neighbourhood's page holds hundreds of them: their messages, verdicts and statuses are made in one
// array each, so a page costs a handful of allocations instead of several an edge.
func edgesPB(edges []graph.Edge) []*pb.Edge {
	if len(edges) == 0 {
		return nil
	}
	msgs := make([]pb.Edge, len(edges))
	verdicts := make([]pb.Verdict, len(edges))
	n := 0
	for _, e := range edges {
		n += len(e.Statuses)
	}
	statuses := make([]pb.ClaimStatus, 0, n)
	out := make([]*pb.Edge, len(edges))
	for i, e := range edges {
		r, m, v := e.Relation, &msgs[i], &verdicts[i]
		m.Name, m.Type, m.From, m.To = string(r.Name), relationTypePB(r.Type), string(r.From), string(r.To)
		m.Symmetric, m.Role = r.Type.Symmetric(), r.Role
		m.ValidFrom, m.ValidTo, m.Date = r.ValidFrom.String(), r.ValidTo.String(), r.Date.String()
		m.ClaimCount, m.Confidence, m.Undated = int32(e.ClaimCount), e.Confidence, !r.Dated()
		setVerdictPB(v, e.Verdict)
		m.Verdict, m.Relation = v, string(r.Name)
		if e.ThroughVia {
			m.Name, m.To, m.Symmetric, m.ThroughVia = string(graph.ViaLinkName(r.Name)), string(r.Via), false, true
		}
		if len(e.Statuses) > 0 {
			from := len(statuses)
			for _, st := range e.Statuses {
				statuses = append(statuses, statusPB(st))
			}
			m.Statuses = statuses[from:len(statuses):len(statuses)]
		}
		out[i] = m
	}
	return out
}

// pathPB is a route with every relation of its hops (from rels, which holds every relation of the answer).
func pathPB(p graph.Path, rels map[graph.RelationName]graph.Relation) *pb.Path {
	out := &pb.Path{}
	for _, e := range p.Entities {
		out.Entities = append(out.Entities, string(e))
	}
	for _, h := range p.Hops {
		out.Hops = append(out.Hops, hopPB(h, rels))
	}
	for _, d := range p.During {
		out.During = append(out.During, dateRangePB(d))
	}
	out.Score, out.Reason, out.WeakestHop = p.Evidence.Score, p.Reason, int32(p.Evidence.Weakest)
	return out
}

// relaxationsPB converts what an emptied answer would hold under looser filters.
func relaxationsPB(rs []graph.Relaxation) []*pb.Relaxation {
	var out []*pb.Relaxation
	for _, r := range rs {
		out = append(out, &pb.Relaxation{Change: r.Change, Results: int32(r.Results)})
	}
	return out
}
