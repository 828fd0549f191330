package ftm

import (
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// What this package knows of the FollowTheMoney schema (followthemoney/schema/*.yaml): the schemata it
// maps, the properties it reads and writes, and which schemata define them. Only what the mapping needs
// is here; every other schema or property is left out on purpose.

// Property names of FollowTheMoney, as the schema spells them.
const (
	propName           = "name"
	propAlias          = "alias"
	propPreviousName   = "previousName"
	propWeakAlias      = "weakAlias"
	propSummary        = "summary"
	propDescription    = "description"
	propNotes          = "notes"
	propTopics         = "topics"
	propClassification = "classification"
	propLegalForm      = "legalForm"
	propWikidataID     = "wikidataId"
	propWebsite        = "website"
	propSourceURL      = "sourceUrl"
	propWikipediaURL   = "wikipediaUrl"
	propEmail          = "email"
	propPhone          = "phone"
	propBirthDate      = "birthDate"
	propDeathDate      = "deathDate"
	propGender         = "gender"
	propIncorporation  = "incorporationDate"
	propDissolution    = "dissolutionDate"
	propInception      = "inceptionDate"
	propOrganization   = "organization"
	propStartDate      = "startDate"
	propEndDate        = "endDate"
	propDate           = "date"
	propRole           = "role"
	propRelationship   = "relationship"
	propPublisher      = "publisher"
	propRecordID       = "recordId"
	propRetrievedAt    = "retrievedAt"
)

// The FollowTheMoney schemata that become entities.
const (
	schemaPerson       = "Person"
	schemaOrganization = "Organization"
	schemaCompany      = "Company"
	schemaLegalEntity  = "LegalEntity"
	schemaPublicBody   = "PublicBody"
	schemaPosition     = "Position"
)

// entitySchemata maps each schema Read makes an entity of to the kind it becomes (before the test for a
// political party, which turns an organisation into a party).
var entitySchemata = map[string]graph.Kind{
	schemaPerson:       graph.KindActor,
	schemaOrganization: graph.KindOrganisation,
	schemaCompany:      graph.KindOrganisation,
	schemaLegalEntity:  graph.KindOrganisation,
	schemaPublicBody:   graph.KindOrganisation,
	schemaPosition:     graph.KindSeat,
}

// The interval schemata that become relations.
const (
	schemaMembership   = "Membership"
	schemaDirectorship = "Directorship"
	schemaEmployment   = "Employment"
	schemaFamily       = "Family"
	schemaAssociate    = "Associate"
	schemaOccupancy    = "Occupancy"
	schemaUnknownLink  = "UnknownLink"
)

// intervalEnds names, for each interval schema Read maps, the properties holding its two ends, in the
// direction of the relation it becomes.
var intervalEnds = map[string][2]string{
	schemaMembership:   {"member", "organization"},
	schemaDirectorship: {"director", "organization"},
	schemaEmployment:   {"employee", "employer"},
	schemaFamily:       {"person", "relative"},
	schemaAssociate:    {"person", "associate"},
	schemaOccupancy:    {"holder", "post"},
	schemaUnknownLink:  {"subject", "object"},
}

// unmappedReasons says why a schema Read knows of is not mapped, for the report.
var unmappedReasons = map[string]string{
	"Ownership":      "polgraph's vocabulary has no ownership relation",
	"Representation": "polgraph's vocabulary has no relation for an agent acting for a client",
	"Succession":     "SUCCEEDED_BY joins seats, and a Succession joins legal entities",
	"Address":        "polgraph does not model addresses",
	"Sanction":       "polgraph does not model sanctions",
}

// level is a schema of the hierarchy that defines properties: a property defined by Organization is
// valid on Organization, Company and PublicBody.
type level int

const (
	levelThing       level = iota // every schema Read maps
	levelLegalEntity              // Person, LegalEntity, Organization, Company, PublicBody
	levelOrg                      // Organization, Company, PublicBody
	levelCompany                  // Company
	levelPerson                   // Person
	levelPosition                 // Position
)

// has reports whether schema defines the properties of level l.
func has(schema string, l level) bool {
	switch l {
	case levelThing:
		_, ok := entitySchemata[schema]
		return ok
	case levelLegalEntity:
		return schema != schemaPosition && has(schema, levelThing)
	case levelOrg:
		return schema == schemaOrganization || schema == schemaCompany || schema == schemaPublicBody
	case levelCompany:
		return schema == schemaCompany
	case levelPerson:
		return schema == schemaPerson
	case levelPosition:
		return schema == schemaPosition
	}
	return false
}

// idProperty is a FollowTheMoney identifier property Read keeps as an external id.
type idProperty struct {
	prop   string // e.g. registrationNumber
	scheme string // the identifier scheme it becomes, e.g. registration_number
	level  level  // the schemata that define it
}

// idProperties lists the identifier properties Read keeps, in the order their ids are added (which
// decides what is dropped when an entity has more than graph.MaxIdentifiers). The scheme is the property
// name in snake case, since graph.ParseIdentifier reads only lower-case schemes; wikidataId becomes the
// "wikidata" scheme polgraph already uses. A person's passport and social security numbers (Person's
// passportNumber, socialSecurityNumber) are personal documents, not ids to publish, and are not read.
var idProperties = []idProperty{
	{propWikidataID, "wikidata", levelThing},
	{"registrationNumber", "registration_number", levelLegalEntity},
	{"idNumber", "id_number", levelLegalEntity},
	{"taxNumber", "tax_number", levelLegalEntity},
	{"licenseNumber", "license_number", levelLegalEntity},
	{"vatCode", "vat_code", levelLegalEntity},
	{"leiCode", "lei_code", levelLegalEntity},
	{"innCode", "inn_code", levelLegalEntity},
	{"ogrnCode", "ogrn_code", levelLegalEntity},
	{"okpoCode", "okpo_code", levelLegalEntity},
	{"dunsCode", "duns_code", levelLegalEntity},
	{"uniqueEntityId", "unique_entity_id", levelLegalEntity},
	{"npiCode", "npi_code", levelLegalEntity},
	{"swiftBic", "swift_bic", levelLegalEntity},
	{"bvdId", "bvd_id", levelLegalEntity},
	{"icijId", "icij_id", levelLegalEntity},
	{"opencorporatesUrl", "opencorporates_url", levelLegalEntity},
	{"cageCode", "cage_code", levelOrg},
	{"permId", "perm_id", levelOrg},
	{"imoNumber", "imo_number", levelOrg},
	{"giiNumber", "gii_number", levelOrg},
	{"voenCode", "voen_code", levelCompany},
	{"coatoCode", "coato_code", levelCompany},
	{"irsCode", "irs_code", levelCompany},
	{"ipoCode", "ipo_code", levelCompany},
	{"cikCode", "cik_code", levelCompany},
	{"jibCode", "jib_code", levelCompany},
	{"mbsCode", "mbs_code", levelCompany},
	{"ibcRuc", "ibc_ruc", levelCompany},
	{"kppCode", "kpp_code", levelCompany},
	{"fnsCode", "fns_code", levelCompany},
	{"pfrNumber", "pfr_number", levelCompany},
	{"isinCode", "isin_code", levelCompany},
	{"ticker", "ticker", levelCompany},
	{"ricCode", "ric_code", levelCompany},
}

// schemeFTM is the identifier scheme of an entity's FollowTheMoney id (and of the ids merged into it,
// its referents).
const schemeFTM = "ftm"

// Notes of the aliases Read makes, saying which property each came from so that Write puts it back.
const (
	noteName         = "name"          // a second or later value of `name`
	notePreviousName = "previous name" // previousName
	noteWeakAlias    = "weak alias"    // weakAlias
)

// aliasProperties are the properties an entity's aliases come from, in the order Read takes them, with
// the note each alias gets ("" for none).
var aliasProperties = []struct{ prop, note string }{
	{propAlias, ""},
	{propPreviousName, notePreviousName},
	{propWeakAlias, noteWeakAlias},
}

// Notes of the links Read makes.
const (
	noteWebsite   = "website"
	noteSource    = "source"
	noteWikipedia = "wikipedia"
)

// linkProperties are the properties an entity's links come from, in the order Read takes them.
var linkProperties = []struct {
	prop, note string
	level      level
}{
	{propWebsite, noteWebsite, levelLegalEntity},
	{propSourceURL, noteSource, levelThing},
	{propWikipediaURL, noteWikipedia, levelThing},
}

// contactProperties are the properties an entity's contact details come from, with their types.
var contactProperties = []struct{ prop, typ string }{
	{propEmail, "email"},
	{propPhone, "phone"},
}

// descriptionProperties are where an entity's description comes from: the first value of the first
// property that has one. Write puts it in summary.
var descriptionProperties = []string{propSummary, propDescription, propNotes}

// topicParty is the FollowTheMoney topic of a political party.
const topicParty = "pol.party"

// partyWords are the words that, in an organisation's classification or legalForm, make it a party.
var partyWords = map[string]bool{
	"party": true, "parties": true, "partei": true, "parti": true, "partido": true, "partito": true,
	"partij": true, "partia": true, "partiya": true,
}

// associateType chooses the relation an Associate becomes from the words of its relationship, or reports
// false when no type of the vocabulary says what they say:
//   - words of campaigning (campaign, campaigner, campaigned…) make CAMPAIGNED_WITH;
//   - words of appearing together (appeared, appearance, rally) make APPEARED_WITH;
//   - words of working together (work, worked, colleague, co-worker, business, employee, employer, staff,
//     assistant, aide, adviser, advisor, secretary, founder) make FORMERLY_WORKED_WITH, the vocabulary's
//     only tie of work between two people; the relation's dates say when.
//
// A bare "associate", "friend" or "partner" says none of these, and the relation is skipped rather than
// given a meaning its source does not state.
func associateType(relationship string) (graph.RelationType, bool) {
	words := strings.Fields(graph.NormalizeName(relationship))
	hasWord := func(prefixes ...string) bool {
		for _, w := range words {
			for _, p := range prefixes {
				if strings.HasPrefix(w, p) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case hasWord("campaign"):
		return graph.CampaignedWith, true
	case hasWord("appeared", "appearance", "rally", "rallies"):
		return graph.AppearedWith, true
	case hasWord("work", "colleague", "coworker", "business", "employ", "staff", "assistant", "aide",
		"adviser", "advisor", "secretary", "founder", "cofounder"):
		return graph.FormerlyWorkedWith, true
	}
	return "", false
}
