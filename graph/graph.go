// Package graph is polgraph's domain: entities, relations, the claims behind them, and the path queries
// asked of them. It knows nothing of Dgraph, gRPC or files; adapters in sub-packages and in cmd depend on
// it, never the other way round.
package graph

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// EntityName is an entity's resource name, `collection/slug`, e.g. `actors/lutfur-rahman`.
type EntityName string

// RelationName is a relation's resource name, e.g. `relations/lutfur-rahman.founded.aspire`.
type RelationName string

// SourceName is a source's resource name, e.g. `sources/daily-mail-2023-11-03`.
type SourceName string

// collections maps each resource-name collection to the kind it holds.
var collections = map[string]Kind{
	"actors":        KindActor,
	"parties":       KindParty,
	"seats":         KindSeat,
	"organisations": KindOrganisation,
}

// Collections lists the resource-name collections, one per kind.
var Collections = []string{"actors", "parties", "seats", "organisations"}

// CollectionOf is the collection a kind's resource names are in ("" for an unknown kind).
func CollectionOf(k Kind) string {
	for coll, kind := range collections {
		if kind == k {
			return coll
		}
	}
	return ""
}

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidSlug reports whether s is a slug: lower-case ASCII letters and digits joined by single hyphens.
func ValidSlug(s string) bool { return len(s) <= 100 && slugPattern.MatchString(s) }

// ParseEntityName checks a resource name and returns its kind.
func ParseEntityName(s string) (Kind, error) {
	coll, slug, ok := strings.Cut(s, "/")
	if !ok {
		return "", fmt.Errorf("%q is not a resource name: want collection/slug, e.g. actors/lutfur-rahman", s)
	}
	kind, ok := collections[coll]
	if !ok {
		return "", fmt.Errorf("%q: unknown collection %q (want actors, parties, seats or organisations)", s, coll)
	}
	if !ValidSlug(slug) {
		return "", fmt.Errorf("%q: slug %q must be lower-case letters and digits joined by single hyphens", s, slug)
	}
	return kind, nil
}

// Slug returns the part of a resource name after its collection.
func Slug[N ~string](name N) string {
	_, slug, _ := strings.Cut(string(name), "/")
	return slug
}

// LooksLikeResourceName reports whether s has the shape collection/slug, so that a lookup should treat it
// as a name rather than as text to search for.
func LooksLikeResourceName(s string) bool {
	coll, slug, ok := strings.Cut(s, "/")
	return ok && coll != "" && ValidSlug(slug) && strings.ToLower(coll) == coll && !strings.ContainsAny(coll, " ")
}

// Entity is an actor, party, seat or organisation.
type Entity struct {
	Name        EntityName
	Kind        Kind
	DisplayName string
	Aliases     []string
	Description string
	Identifiers Identifiers
	ValidFrom   FuzzyDate
	ValidTo     FuzzyDate
	// Attributes are birth and death dates, gender, links, images, contact details and aliases with
	// their languages: what published data says of the entity.
	Attributes Attributes
	Deleted    Tombstone // set when the entity was deleted: kept, but in no search
	// MergedInto is set (with Deleted) when the entity was merged into another: its name redirects there.
	MergedInto EntityName
}

// SourceKind says what kind of document a source is.
type SourceKind string

// The source kinds.
const (
	SourceArticle    SourceKind = "ARTICLE"
	SourceSocialPost SourceKind = "SOCIAL_POST"
	SourceDataset    SourceKind = "DATASET"
	SourceOther      SourceKind = "OTHER"
)

// Source is a document that claims come from.
type Source struct {
	Name      SourceName
	Title     string
	Kind      SourceKind
	Outlet    string
	Author    string
	Published FuzzyDate
	URL       string
	// Retrieved is when a dataset was fetched; Licence is the terms it is published under. For a
	// dataset, Outlet is its publisher.
	Retrieved FuzzyDate
	Licence   string
}

// ClaimStatus says how a source puts a claim.
type ClaimStatus string

// The claim statuses, in the order ClaimStatuses lists them.
const (
	StatusAlleged   ClaimStatus = "ALLEGED"
	StatusReported  ClaimStatus = "REPORTED"
	StatusConfirmed ClaimStatus = "CONFIRMED"
	StatusDenied    ClaimStatus = "DENIED"
)

// ClaimStatuses lists every status.
var ClaimStatuses = []ClaimStatus{StatusAlleged, StatusReported, StatusConfirmed, StatusDenied}

// Index returns the status's position in ClaimStatuses, or -1.
func (s ClaimStatus) Index() int {
	for i, c := range ClaimStatuses {
		if c == s {
			return i
		}
	}
	return -1
}

// Claim is one source's statement backing, or denying, a relation.
type Claim struct {
	Name    string
	Source  Source
	Excerpt string
	// Record is the id of the record a claim from structured data comes from (a Popolo membership, a
	// FollowTheMoney entity); such a claim may have no excerpt.
	Record     string
	Confidence float64
	Status     ClaimStatus
	SaidBy     EntityName
	Retracted  Tombstone // set when the claim was retracted: kept and shown, but it never counts
}

// Support holds, for each claim status (indexed as ClaimStatuses), the highest confidence of the
// relation's claims with that status, or -1 when it has none. It is what the filters need to decide
// whether a relation counts as a link without reading its claims.
type Support [4]float64

// NoSupport is the Support of a relation without claims.
var NoSupport = Support{-1, -1, -1, -1}

// SupportOf summarises claims; retracted claims do not count.
func SupportOf(claims []Claim) Support {
	s := NoSupport
	for _, c := range claims {
		if !c.Retracted.IsZero() {
			continue
		}
		if i := c.Status.Index(); i >= 0 && c.Confidence > s[i] {
			s[i] = c.Confidence
		}
	}
	return s
}

// Verdict counts the claims behind a relation (indexed as ClaimStatuses), and the distinct sources that
// support it and that deny it: how much evidence there is for it and against it.
type Verdict struct {
	Claims                            [4]int
	SupportingSources, DenyingSources int
}

// VerdictOf counts claims and their sources; retracted claims do not count.
func VerdictOf(claims []Claim) Verdict {
	if len(claims) > 16 {
		return verdictBySets(claims)
	}
	var v Verdict
	// Most relations have a few claims: their distinct sources are counted by looking back over the
	// claims before, without a set.
	seen := func(k int, denied bool) bool {
		for _, c := range claims[:k] {
			if c.Retracted.IsZero() && c.Status.Index() >= 0 && (c.Status == StatusDenied) == denied && c.Source.Name == claims[k].Source.Name {
				return true
			}
		}
		return false
	}
	for k, c := range claims {
		if !c.Retracted.IsZero() {
			continue
		}
		i := c.Status.Index()
		if i < 0 {
			continue
		}
		v.Claims[i]++
		denied := c.Status == StatusDenied
		if seen(k, denied) {
			continue
		}
		if denied {
			v.DenyingSources++
		} else {
			v.SupportingSources++
		}
	}
	return v
}

// verdictBySets is VerdictOf for many claims.
func verdictBySets(claims []Claim) Verdict {
	var v Verdict
	supporting, denying := map[SourceName]bool{}, map[SourceName]bool{}
	for _, c := range claims {
		if !c.Retracted.IsZero() {
			continue
		}
		i := c.Status.Index()
		if i < 0 {
			continue
		}
		v.Claims[i]++
		if c.Status == StatusDenied {
			denying[c.Source.Name] = true
		} else {
			supporting[c.Source.Name] = true
		}
	}
	v.SupportingSources, v.DenyingSources = len(supporting), len(denying)
	return v
}

// Supporting counts the claims that support the relation (every status but DENIED).
func (v Verdict) Supporting() int { return v.Claims[0] + v.Claims[1] + v.Claims[2] }

// Denying counts the claims that deny it.
func (v Verdict) Denying() int { return v.Claims[StatusDenied.Index()] }

// String says it in words: "3 claims support it", "3 of 4 claims deny it".
func (v Verdict) String() string {
	total := v.Supporting() + v.Denying()
	plural := func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	}
	switch {
	case total == 0:
		return "no claims"
	case v.Denying() == 0:
		return strconv.Itoa(total) + plural(total, " claim supports it", " claims support it")
	case v.Supporting() == 0:
		return strconv.Itoa(total) + plural(total, " claim denies it", " claims deny it")
	}
	return strconv.Itoa(v.Denying()) + " of " + strconv.Itoa(total) + " claims deny it"
}

// Link is what path search needs to know of a relation: its ends, type, time and support.
type Link struct {
	Name     RelationName
	Type     RelationType
	From, To EntityName
	// Period is when the relation itself holds (Relation.Period); Dated says whether its source gave any
	// date at all (an undated relation's Period is all of time).
	Period Period
	Dated  bool
	// Life is when both ends existed (the overlap of their lifetimes; all of time when neither has one):
	// the relation cannot hold outside it.
	Life      Period
	Support   Support
	Symmetric bool
	Deleted   bool // a deleted relation (or one of a deleted entity) never counts
}

// Effective is when the relation holds with both its ends in existence.
func (l Link) Effective() Period { return l.Period.Intersect(l.Life) }

// Relation is a typed link between two entities with its claims.
type Relation struct {
	Name     RelationName
	Type     RelationType
	From, To EntityName
	Role     string
	Via      EntityName
	// Term is the legislative period (an organisation entity, a term of a legislature) a membership or
	// office belongs to.
	Term      EntityName
	ValidFrom FuzzyDate
	ValidTo   FuzzyDate
	Date      FuzzyDate
	// DatesFrom says where the relation's dates come from when not from its claims' excerpts: "public
	// record: elected Labour leader on 4 April 2020". Empty: the cited excerpts give them.
	DatesFrom string
	Claims    []Claim
	Deleted   Tombstone // set when the relation was deleted: kept, but in no search
	// MergedInto is set (with Deleted) when a merge of entities moved the relation's claims to another
	// relation: its name redirects there.
	MergedInto RelationName
}

// RelationNameFor derives a relation's resource name from its ends, type and optional key.
func RelationNameFor(from EntityName, t RelationType, to EntityName, key string) RelationName {
	n := "relations/" + Slug(from) + "." + t.Kebab() + "." + Slug(to)
	if key != "" {
		n += "." + key
	}
	return RelationName(n)
}

// ClaimNameFor derives a claim's resource name from its relation, source and optional key.
func ClaimNameFor(rel RelationName, src SourceName, key string) string {
	n := string(rel) + "/claims/" + Slug(src)
	if key != "" {
		n += "-" + key
	}
	return n
}

// Period returns when the relation holds, each fuzzy bound read at its widest:
//   - a state (valid_from and/or valid_to) holds from its start to its end, open where a bound is missing
//     (a missing start is the event's date, when the relation has one);
//   - an event (a date, and no valid_from or valid_to) holds during its date: "2015" is the whole of 2015,
//     "2015-11-07" that day; it does not hold before or after;
//   - an undated relation holds at all times (Dated says it is undated).
func (r Relation) Period() Period {
	if r.ValidFrom.IsZero() && r.ValidTo.IsZero() {
		if r.Date.IsZero() {
			return OpenPeriod
		}
		return PeriodOf(r.Date)
	}
	p := OpenPeriod
	switch {
	case !r.ValidFrom.IsZero():
		p.Start = r.ValidFrom.FirstDay()
	case !r.Date.IsZero():
		p.Start = r.Date.FirstDay()
	}
	if !r.ValidTo.IsZero() {
		p.End = r.ValidTo.LastDay()
	}
	return p
}

// Dated reports whether the relation has a date or a bound.
func (r Relation) Dated() bool {
	return !r.ValidFrom.IsZero() || !r.ValidTo.IsZero() || !r.Date.IsZero()
}

// Link returns the relation as path search sees it, with its ends' lifetimes unknown (all of time); see
// LinkBetween.
func (r Relation) Link() Link {
	return r.LinkBetween(OpenPeriod, OpenPeriod)
}

// LinkBetween returns the relation as path search sees it, between ends that existed during fromLife and
// toLife.
func (r Relation) LinkBetween(fromLife, toLife Period) Link {
	return Link{Name: r.Name, Type: r.Type, From: r.From, To: r.To, Period: r.Period(), Dated: r.Dated(),
		Life: LifeOf(r.Type, fromLife, toLife), Support: SupportOf(r.Claims), Symmetric: r.Type.Symmetric(), Deleted: !r.Deleted.IsZero()}
}

// LifeOf is when a relation of type t can hold between ends that existed during fromLife and toLife: while
// both existed, except that a candidacy (CANDIDATE_FOR) is not bounded by its seat's creation. A candidate
// is nominated for a seat the election itself brings into being (Bethnal Green and Stepney exists from
// polling day, 2024-07-04, and its candidates stood from May); the seat's abolition still bounds it.
//
// A succession (SUCCEEDED_BY) happens as one seat gives way to the other: it can hold from the first's
// creation to the second's abolition, its date the day the second begins.
func LifeOf(t RelationType, fromLife, toLife Period) Period {
	switch t {
	case CandidateFor:
		toLife.Start = OpenPeriod.Start
	case SucceededBy:
		return Period{Start: fromLife.Start, End: toLife.End}
	}
	return fromLife.Intersect(toLife)
}

// Lifetime is when the entity existed: from its valid_from (a seat's creation, a party's founding) to its
// valid_to (abolition, dissolution), or a person's birth and death dates where those are not given, open
// where a bound is missing.
func (e Entity) Lifetime() Period {
	p := OpenPeriod
	from, to := e.ValidFrom, e.ValidTo
	if from.IsZero() {
		from = e.Attributes.BirthDate // a person exists from birth to death
	}
	if to.IsZero() {
		to = e.Attributes.DeathDate
	}
	if !from.IsZero() {
		p.Start = from.FirstDay()
	}
	if !to.IsZero() {
		p.End = to.LastDay()
	}
	return p
}

// RelationCount counts an entity's relations of one type in one direction. A symmetric type has no
// direction: its relations are counted once, with Outgoing true, and Undirected says so.
type RelationCount struct {
	Type     RelationType
	Outgoing bool
	Count    int
}

// Undirected reports whether the count is of a symmetric type, whose relations have no direction.
func (c RelationCount) Undirected() bool { return c.Type.Symmetric() }

// RelationHeader is a relation without its claims, with what a drawing of it needs from them.
type RelationHeader struct {
	Relation   Relation // Claims is empty
	ClaimCount int
	Support    Support
	Verdict    Verdict
}

// Tombstone says that, when and why a resource was retracted or deleted, and by whom.
type Tombstone struct {
	Time   time.Time
	By     string
	Reason string
}

// IsZero reports whether there is no tombstone.
func (t Tombstone) IsZero() bool { return t.Time.IsZero() }
