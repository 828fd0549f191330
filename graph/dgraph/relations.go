package dgraph

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// encodeSupport writes a relation's summary of its claims (pg.support): eleven numbers, for each claim
// status in graph.ClaimStatuses order the best confidence (-1 for a status without claims), then for each
// status the number of claims, then the number of distinct sources that support it and that deny it, then
// the number of its claims, retracted ones included (what count(~pg.claim_of) counts). The first eight
// leave retracted claims out. Summaries written before the last number hold ten.
func encodeSupport(claims []graph.Claim) string {
	s, v := graph.SupportOf(claims), graph.VerdictOf(claims)
	parts := make([]string, 0, 10)
	for _, c := range s {
		parts = append(parts, strconv.FormatFloat(c, 'g', -1, 64))
	}
	for _, n := range v.Claims {
		parts = append(parts, strconv.Itoa(n))
	}
	parts = append(parts, strconv.Itoa(v.SupportingSources), strconv.Itoa(v.DenyingSources), strconv.Itoa(len(claims)))
	return strings.Join(parts, " ")
}

// DecodeSupport reads the best confidence per claim status from a relation's pg.support, as clients that
// query Dgraph directly find it (see encodeSupport).
func DecodeSupport(text string) graph.Support {
	s := graph.NoSupport
	for i, f := range strings.Fields(text) {
		if i >= len(s) {
			break
		}
		if v, err := strconv.ParseFloat(f, 64); err == nil {
			s[i] = v
		}
	}
	return s
}

// decodeVerdict reads the counts of claims and sources from a relation's pg.support (zero when it was
// written before it held them).
func decodeVerdict(text string) graph.Verdict {
	v, _, _ := decodeCounts(text)
	return v
}

// decodeCounts reads, in one pass over a relation's pg.support, its verdict and the number of its claims,
// retracted ones included; counted is false for a summary written before it held that number.
func decodeCounts(text string) (v graph.Verdict, claims int, counted bool) {
	for i, f := range strings.Fields(text) {
		if i < 4 {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			continue
		}
		switch {
		case i < 8:
			v.Claims[i-4] = n
		case i == 8:
			v.SupportingSources = n
		case i == 9:
			v.DenyingSources = n
		case i == 10:
			claims, counted = n, true
		}
	}
	return v, claims, counted
}

type linkJSON struct {
	Deleted  *int64   `json:"pg.deleted_at"`
	Name     string   `json:"pg.name"`
	Type     string   `json:"pg.rel_type"`
	StartDay *int     `json:"pg.start_day"`
	EndDay   *int     `json:"pg.end_day"`
	Support  string   `json:"pg.support"`
	To       *endJSON `json:"pg.to"`
	From     *endJSON `json:"pg.from"`
}

// endJSON is an end of a relation: its name and lifetime (pg.start_day, pg.end_day, derived from its
// valid_from and valid_to).
type endJSON struct {
	UID      string `json:"uid"`
	Name     string `json:"pg.name"`
	StartDay *int   `json:"pg.start_day"`
	EndDay   *int   `json:"pg.end_day"`
}

func (e *endJSON) life() graph.Period { return period(e.StartDay, e.EndDay) }

// period reads derived days, open where one is missing.
func period(start, end *int) graph.Period {
	p := graph.OpenPeriod
	if start != nil {
		p.Start = *start
	}
	if end != nil {
		p.End = *end
	}
	return p
}

// link is the relation as path search sees it; self stands for the end the query started from.
func (l linkJSON) link(self *endJSON) graph.Link {
	from, to := self, self
	if l.From != nil {
		from = l.From
	}
	if l.To != nil {
		to = l.To
	}
	out := graph.Link{Name: graph.RelationName(l.Name), Type: graph.RelationType(l.Type),
		From: graph.EntityName(from.Name), To: graph.EntityName(to.Name), Period: period(l.StartDay, l.EndDay),
		Dated: l.StartDay != nil || l.EndDay != nil, Life: graph.LifeOf(graph.RelationType(l.Type), from.life(), to.life()), Support: DecodeSupport(l.Support),
		Deleted: l.Deleted != nil}
	out.Symmetric = out.Type.Symmetric()
	return out
}

var uidPattern = regexp.MustCompile(`^0x[0-9a-f]{1,16}$`)

const (
	linkFields = `pg.name pg.rel_type pg.start_day pg.end_day pg.support pg.deleted_at`
	endFields  = `uid pg.name pg.start_day pg.end_day`
)

// resolve returns the uids of the named resources that exist, from the cache or from Dgraph.
func (s *Store) resolve(ctx context.Context, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	var missing []string
	s.uidsMu.RLock()
	for _, n := range names {
		if u, ok := s.uids[n]; ok {
			out[n] = u
		} else {
			missing = append(missing, n)
		}
	}
	s.uidsMu.RUnlock()
	for _, chunk := range chunks(missing, 500) {
		q, vars := nameBlocks(chunk, "uid pg.name")
		var res map[string][]nameRef
		if err := s.query(ctx, "dgraph.resolve", q, vars, &res); err != nil {
			return nil, err
		}
		for _, rows := range res {
			for _, r := range rows {
				s.remember(r.Name, r.UID)
				out[r.Name] = r.UID
			}
		}
	}
	return out, nil
}

// uidList returns the uids of the entities that exist, each checked to be a uid, since they are written
// into a query's text (uid() takes no variable list).
func (s *Store) uidList(ctx context.Context, op string, entities []graph.EntityName) ([]string, error) {
	uids, err := s.resolve(ctx, strs(entities))
	if err != nil {
		return nil, err
	}
	list := make([]string, 0, len(uids))
	for _, u := range uids {
		if !uidPattern.MatchString(u) {
			return nil, &graph.Error{Op: op, Kind: graph.Internal, Message: "Dgraph returned a malformed uid " + u}
		}
		list = append(list, u)
	}
	return list, nil
}

// ViaLinks implements graph.ViaLinker in one round trip (plus one to resolve names not seen before).
func (s *Store) ViaLinks(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	out := make(map[graph.EntityName][]graph.Link, len(entities))
	list, err := s.uidList(ctx, "dgraph.ViaLinks", entities)
	if err != nil || len(list) == 0 {
		return out, err
	}
	type viaJSON struct {
		linkJSON
		Via *endJSON `json:"pg.via"`
	}
	var res struct {
		Q []struct {
			endJSON
			Out []viaJSON  `json:"out"`
			In  []linkJSON `json:"in"`
		}
	}
	// As in Links, only uids that came from Dgraph are written into the query.
	q := `{ q(func: uid(` + strings.Join(list, ",") + `)) { ` + endFields + `
  out: ~pg.from @filter(has(pg.via)) { ` + linkFields + ` pg.via { ` + endFields + ` } }
  in: ~pg.via { ` + linkFields + ` pg.from { ` + endFields + ` } }
} }`
	if err := s.query(ctx, "dgraph.ViaLinks", q, nil, &res); err != nil {
		return nil, err
	}
	for _, r := range res.Q {
		self := &r.endJSON
		var ls []graph.Link
		add := func(l graph.Link) {
			l.Name, l.Symmetric = graph.ViaLinkName(l.Name), false
			ls = append(ls, l)
		}
		for _, l := range r.Out {
			if l.Via == nil {
				continue
			}
			l.linkJSON.From, l.linkJSON.To = nil, l.Via
			add(l.linkJSON.link(self))
		}
		for _, l := range r.In {
			if l.From == nil {
				continue
			}
			l.To = nil
			add(l.link(self))
		}
		out[graph.EntityName(r.Name)] = ls
	}
	return out, nil
}

// Links implements graph.Store: one round trip for the whole frontier (plus one to resolve names not
// seen before).
func (s *Store) Links(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	out := make(map[graph.EntityName][]graph.Link, len(entities))
	list, err := s.uidList(ctx, "dgraph.Links", entities)
	if err != nil || len(list) == 0 {
		return out, err
	}
	var res struct {
		Q []struct {
			endJSON
			Out []linkJSON `json:"out"`
			In  []linkJSON `json:"in"`
		}
	}
	// uid() takes no variable list, so the uids (which come from Dgraph and were checked above) are
	// written into the query; nothing from the user is.
	q := `{ q(func: uid(` + strings.Join(list, ",") + `)) { ` + endFields + `
  out: ~pg.from { ` + linkFields + ` pg.to { ` + endFields + ` } }
  in: ~pg.to { ` + linkFields + ` pg.from { ` + endFields + ` } }
} }`
	if err := s.query(ctx, "dgraph.Links", q, nil, &res); err != nil {
		return nil, err
	}
	for _, r := range res.Q {
		self := &r.endJSON
		ls := make([]graph.Link, 0, len(r.Out)+len(r.In))
		for _, l := range r.Out {
			if l.To != nil {
				s.remember(l.To.Name, l.To.UID)
			}
			ls = append(ls, l.link(self))
		}
		for _, l := range r.In {
			if l.From != nil {
				s.remember(l.From.Name, l.From.UID)
			}
			ls = append(ls, l.link(self))
		}
		out[graph.EntityName(r.Name)] = ls
	}
	return out, nil
}

type claimJSON struct {
	tombstoneJSON
	UID        string     `json:"uid"` // when asked for
	Name       string     `json:"pg.name"`
	Excerpt    string     `json:"pg.excerpt"`
	Record     string     `json:"pg.record"`
	Confidence float64    `json:"pg.confidence"`
	Status     string     `json:"pg.status"`
	SaidBy     *nameRef   `json:"pg.said_by"`
	Source     sourceJSON `json:"pg.source"`
}

type sourceJSON struct {
	Name      string `json:"pg.name"`
	Title     string `json:"pg.title"`
	Kind      string `json:"pg.source_kind"`
	Outlet    string `json:"pg.outlet"`
	Author    string `json:"pg.author"`
	Published string `json:"pg.published"`
	URL       string `json:"pg.url"`
	Retrieved string `json:"pg.retrieved"`
	Licence   string `json:"pg.licence"`
}

func (j sourceJSON) source() graph.Source {
	src := graph.Source{Name: graph.SourceName(j.Name), Title: j.Title, Kind: graph.SourceKind(j.Kind),
		Outlet: j.Outlet, Author: j.Author, URL: j.URL, Licence: j.Licence}
	src.Published, _ = graph.ParseFuzzyDate(j.Published)
	src.Retrieved, _ = graph.ParseFuzzyDate(j.Retrieved)
	return src
}

// tombstoneJSON reads a deletion's or a retraction's mark.
type tombstoneJSON struct {
	DeletedAt     *int64 `json:"pg.deleted_at"`
	DeletedBy     string `json:"pg.deleted_by"`
	DeleteReason  string `json:"pg.delete_reason"`
	RetractedAt   *int64 `json:"pg.retracted_at"`
	RetractedBy   string `json:"pg.retracted_by"`
	RetractReason string `json:"pg.retract_reason"`
}

func (t tombstoneJSON) deleted() graph.Tombstone {
	if t.DeletedAt == nil {
		return graph.Tombstone{}
	}
	return graph.Tombstone{Time: time.UnixMilli(*t.DeletedAt).UTC(), By: t.DeletedBy, Reason: t.DeleteReason}
}

func (t tombstoneJSON) retracted() graph.Tombstone {
	if t.RetractedAt == nil {
		return graph.Tombstone{}
	}
	return graph.Tombstone{Time: time.UnixMilli(*t.RetractedAt).UTC(), By: t.RetractedBy, Reason: t.RetractReason}
}

const (
	deletedFields   = `pg.deleted_at pg.deleted_by pg.delete_reason`
	retractedFields = `pg.retracted_at pg.retracted_by pg.retract_reason`
)

type relationJSON struct {
	tombstoneJSON
	UID        string      `json:"uid"` // when asked for
	Name       string      `json:"pg.name"`
	Type       string      `json:"pg.rel_type"`
	From       *nameRef    `json:"pg.from"`
	To         *nameRef    `json:"pg.to"`
	Via        *nameRef    `json:"pg.via"`
	Term       *nameRef    `json:"pg.term"`
	Role       string      `json:"pg.role"`
	ValidFrom  string      `json:"pg.valid_from"`
	ValidTo    string      `json:"pg.valid_to"`
	Date       string      `json:"pg.date"`
	DatesFrom  string      `json:"pg.dates_from"`
	Claims     []claimJSON `json:"claims"`
	MergedInto *nameRef    `json:"pg.merged_into"`
}

// relationFields read a relation with its claims. The claims come unordered and relation() sorts them by
// name: Dgraph orders a node's few claims by pg.name through that predicate's whole index, which made
// reading the two or three relations of an answer cost 5.6 ms instead of 1.3 (100k relations).
const relationFields = `pg.name pg.rel_type pg.role pg.valid_from pg.valid_to pg.date pg.dates_from ` + deletedFields + `
  pg.from { pg.name } pg.to { pg.name } pg.via { pg.name } pg.term { pg.name } pg.merged_into { pg.name }
  claims: ~pg.claim_of { pg.name pg.excerpt pg.record pg.confidence pg.status pg.said_by { pg.name } ` + retractedFields + `
    pg.source { pg.name pg.title pg.source_kind pg.outlet pg.author pg.published pg.url pg.retrieved pg.licence } }`

func (j relationJSON) relation() graph.Relation {
	r := graph.Relation{Name: graph.RelationName(j.Name), Type: graph.RelationType(j.Type), Role: j.Role, DatesFrom: j.DatesFrom, Deleted: j.deleted()}
	if j.From != nil {
		r.From = graph.EntityName(j.From.Name)
	}
	if j.To != nil {
		r.To = graph.EntityName(j.To.Name)
	}
	if j.Via != nil {
		r.Via = graph.EntityName(j.Via.Name)
	}
	if j.Term != nil {
		r.Term = graph.EntityName(j.Term.Name)
	}
	if j.MergedInto != nil {
		r.MergedInto = graph.RelationName(j.MergedInto.Name)
	}
	r.ValidFrom, _ = graph.ParseFuzzyDate(j.ValidFrom)
	r.ValidTo, _ = graph.ParseFuzzyDate(j.ValidTo)
	r.Date, _ = graph.ParseFuzzyDate(j.Date)
	for _, c := range j.Claims {
		claim := graph.Claim{Name: c.Name, Source: c.Source.source(), Excerpt: c.Excerpt, Record: c.Record, Confidence: c.Confidence,
			Status: graph.ClaimStatus(c.Status), Retracted: c.retracted()}
		if c.SaidBy != nil {
			claim.SaidBy = graph.EntityName(c.SaidBy.Name)
		}
		r.Claims = append(r.Claims, claim)
	}
	sortClaims(r.Claims)
	return r
}

// sortClaims orders claims by name, as every read gives them.
func sortClaims(cs []graph.Claim) {
	slices.SortFunc(cs, func(a, b graph.Claim) int { return strings.Compare(a.Name, b.Name) })
}

// GetRelations implements graph.Store.
func (s *Store) GetRelations(ctx context.Context, names []graph.RelationName) (map[graph.RelationName]graph.Relation, error) {
	out := make(map[graph.RelationName]graph.Relation, len(names))
	err := readNamed(ctx, s, "dgraph.GetRelations", strs(names), 200, relationFields, func(r relationJSON) string { return r.Name },
		func(r relationJSON) {
			if r.Type != "" {
				out[graph.RelationName(r.Name)] = r.relation()
			}
		})
	return out, err
}

// RelationHeaders implements graph.Store.
func (s *Store) RelationHeaders(ctx context.Context, names []graph.RelationName) (map[graph.RelationName]graph.RelationHeader, error) {
	type headerJSON struct {
		relationJSON
		Support    string `json:"pg.support"`
		ClaimCount int    `json:"count(~pg.claim_of)"`
	}
	out := make(map[graph.RelationName]graph.RelationHeader, len(names))
	err := readNamed(ctx, s, "dgraph.RelationHeaders", strs(names), 500, relationHeaderFields, func(r headerJSON) string { return r.Name },
		func(r headerJSON) {
			if r.Type != "" {
				out[graph.RelationName(r.Name)] = graph.RelationHeader{Relation: r.relation(),
					ClaimCount: r.ClaimCount, Support: DecodeSupport(r.Support), Verdict: decodeVerdict(r.Support)}
			}
		})
	return out, err
}

const relationHeaderFields = `pg.name pg.rel_type pg.role pg.valid_from pg.valid_to pg.date pg.dates_from pg.support ` + deletedFields + `
  pg.from { pg.name } pg.to { pg.name } pg.via { pg.name } pg.term { pg.name } pg.merged_into { pg.name } count(~pg.claim_of)`

// Degrees implements graph.Store.
func (s *Store) Degrees(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName]int, error) {
	type degreeJSON struct {
		Name    string `json:"pg.name"`
		Out, In int
	}
	out := make(map[graph.EntityName]int, len(entities))
	err := readNamed(ctx, s, "dgraph.Degrees", strs(entities), 500, "pg.name out: count(~pg.from) in: count(~pg.to)",
		func(r degreeJSON) string { return r.Name }, func(r degreeJSON) { out[graph.EntityName(r.Name)] = r.Out + r.In })
	return out, err
}
