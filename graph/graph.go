// Package graph is polgraph's domain: entities, relations, the claims behind them, and the path queries
// asked of them. It knows nothing of Dgraph, gRPC or files; adapters in sub-packages and in cmd depend on
// it, never the other way round.
package graph

import (
	"fmt"
	"regexp"
	"strings"
)

// EntityName is an entity's resource name, `collection/slug`, e.g. `actors/lutfur-rahman`.
type EntityName string

// RelationName is a relation's resource name, e.g. `relations/lutfur-rahman.founded.aspire`.
type RelationName string

// SourceName is a source's resource name, e.g. `sources/daily-mail-2023-11-03`.
type SourceName string

// Kind is what an entity is; it is also the collection of its resource name.
type Kind string

// The entity kinds.
const (
	KindActor        Kind = "ACTOR"
	KindParty        Kind = "PARTY"
	KindSeat         Kind = "SEAT"
	KindOrganisation Kind = "ORGANISATION"
)

// collections maps each resource-name collection to the kind it holds.
var collections = map[string]Kind{
	"actors":        KindActor,
	"parties":       KindParty,
	"seats":         KindSeat,
	"organisations": KindOrganisation,
}

// Collections lists the resource-name collections, one per kind.
var Collections = []string{"actors", "parties", "seats", "organisations"}

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
	Identifiers map[string]string
	ValidFrom   FuzzyDate
	ValidTo     FuzzyDate
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
	Name       string
	Source     Source
	Excerpt    string
	Confidence float64
	Status     ClaimStatus
	SaidBy     EntityName
}

// Support holds, for each claim status (indexed as ClaimStatuses), the highest confidence of the
// relation's claims with that status, or -1 when it has none. It is what the filters need to decide
// whether a relation counts as a link without reading its claims.
type Support [4]float64

// NoSupport is the Support of a relation without claims.
var NoSupport = Support{-1, -1, -1, -1}

// SupportOf summarises claims.
func SupportOf(claims []Claim) Support {
	s := NoSupport
	for _, c := range claims {
		if i := c.Status.Index(); i >= 0 && c.Confidence > s[i] {
			s[i] = c.Confidence
		}
	}
	return s
}

// Link is what path search needs to know of a relation: its ends, type, time and support.
type Link struct {
	Name      RelationName
	Type      RelationType
	From, To  EntityName
	Period    Period
	Support   Support
	Symmetric bool
}

// Relation is a typed link between two entities with its claims.
type Relation struct {
	Name      RelationName
	Type      RelationType
	From, To  EntityName
	Role      string
	Via       EntityName
	ValidFrom FuzzyDate
	ValidTo   FuzzyDate
	Date      FuzzyDate
	Claims    []Claim
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

// Period returns when the relation holds: from its start (or its event's date) to its end, each fuzzy
// bound read at its widest.
func (r Relation) Period() Period {
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

// Link returns the relation as path search sees it.
func (r Relation) Link() Link {
	return Link{Name: r.Name, Type: r.Type, From: r.From, To: r.To, Period: r.Period(),
		Support: SupportOf(r.Claims), Symmetric: r.Type.Symmetric()}
}

// RelationCount counts an entity's relations of one type in one direction.
type RelationCount struct {
	Type     RelationType
	Outgoing bool
	Count    int
}

// RelationHeader is a relation without its claims, with what a drawing of it needs from them.
type RelationHeader struct {
	Relation   Relation // Claims is empty
	ClaimCount int
	Support    Support
}
