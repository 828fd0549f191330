package graph

import "strings"

// RelationType is a type from the closed relation vocabulary.
type RelationType string

// The relation vocabulary. data/FORMAT.md and the proto document each type's meaning and direction.
const (
	MemberOf           RelationType = "MEMBER_OF"
	Leads              RelationType = "LEADS"
	HoldsOffice        RelationType = "HOLDS_OFFICE"
	CandidateFor       RelationType = "CANDIDATE_FOR"
	FormerlyWorkedWith RelationType = "FORMERLY_WORKED_WITH"
	Endorses           RelationType = "ENDORSES"
	Accused            RelationType = "ACCUSED"
	RemovedFromOffice  RelationType = "REMOVED_FROM_OFFICE"
	SuspendedFrom      RelationType = "SUSPENDED_FROM"
	ResignedFrom       RelationType = "RESIGNED_FROM"
	Founded            RelationType = "FOUNDED"
	Criticised         RelationType = "CRITICISED"
	Defeated           RelationType = "DEFEATED"
	Family             RelationType = "FAMILY"
	AppearedWith       RelationType = "APPEARED_WITH"
	PartOf             RelationType = "PART_OF"
	SucceededBy        RelationType = "SUCCEEDED_BY"
	CampaignedWith     RelationType = "CAMPAIGNED_WITH"
	// Deselected is a party withdrawing an actor as its candidate for a seat or office: not a removal
	// from the office itself (REMOVED_FROM_OFFICE), which only a court, a council or a vote does.
	Deselected RelationType = "DESELECTED"
	// Dissolved is a party or organisation wound up, deregistered or disbanded, by whoever did it (its
	// leaders, a regulator, a court): it ends the group's lifetime where it has no end date of its own.
	Dissolved RelationType = "DISSOLVED"
)

// typeInfo is what the vocabulary says of a type.
type typeInfo struct {
	symmetric bool
	from, to  []Kind // the kinds each end may have; nil means any
}

var (
	actor   = []Kind{KindActor}
	groups  = []Kind{KindParty, KindOrganisation}
	seat    = []Kind{KindSeat}
	anyKind []Kind
)

var vocabulary = map[RelationType]typeInfo{
	MemberOf:           {from: actor, to: groups},
	Leads:              {from: actor, to: []Kind{KindParty, KindOrganisation, KindSeat}},
	HoldsOffice:        {from: actor, to: seat},
	CandidateFor:       {from: actor, to: seat},
	FormerlyWorkedWith: {symmetric: true, from: actor, to: actor},
	Endorses:           {from: anyKind, to: []Kind{KindActor, KindParty}},
	Accused:            {},
	RemovedFromOffice:  {from: actor, to: seat},
	SuspendedFrom:      {from: actor, to: groups},
	ResignedFrom:       {from: actor, to: []Kind{KindParty, KindOrganisation, KindSeat}},
	Founded:            {from: actor, to: groups},
	Criticised:         {},
	Defeated:           {from: []Kind{KindActor, KindParty}, to: []Kind{KindActor, KindParty}},
	Family:             {symmetric: true, from: actor, to: actor},
	AppearedWith:       {symmetric: true, from: actor, to: actor},
	PartOf:             {from: []Kind{KindParty, KindOrganisation, KindSeat}, to: []Kind{KindParty, KindOrganisation, KindSeat}},
	SucceededBy:        {from: seat, to: seat},
	CampaignedWith:     {symmetric: true, from: actor, to: actor},
	Deselected:         {from: actor, to: seat},
	Dissolved:          {to: groups},
}

// RelationTypes lists the vocabulary in a fixed order.
var RelationTypes = []RelationType{MemberOf, Leads, HoldsOffice, CandidateFor, FormerlyWorkedWith, Endorses,
	Accused, RemovedFromOffice, SuspendedFrom, ResignedFrom, Founded, Criticised, Defeated, Family,
	AppearedWith, PartOf, SucceededBy, CampaignedWith, Deselected, Dissolved}

// Valid reports whether t is in the vocabulary.
func (t RelationType) Valid() bool { _, ok := vocabulary[t]; return ok }

// Symmetric reports whether t joins two entities without a direction.
func (t RelationType) Symmetric() bool { return vocabulary[t].symmetric }

// Kebab returns the type as used in relation names: `holds-office`.
func (t RelationType) Kebab() string { return strings.ReplaceAll(strings.ToLower(string(t)), "_", "-") }

// Joins reports whether a relation of type t may go from an entity of kind from to one of kind to.
func (t RelationType) Joins(from, to Kind) bool {
	info := vocabulary[t]
	return allows(info.from, from) && allows(info.to, to)
}

func allows(kinds []Kind, k Kind) bool {
	if kinds == nil {
		return true
	}
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Kind is what an entity is; it is also the collection of its resource name.
type Kind string

// The entity kinds.
const (
	KindActor        Kind = "ACTOR"
	KindParty        Kind = "PARTY"
	KindSeat         Kind = "SEAT"
	KindOrganisation Kind = "ORGANISATION"
)
