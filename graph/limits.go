package graph

import "unicode/utf8"

// Limits on what a record may hold, for every way records come in (dataset files now, the write API
// later), so that a value is refused with a message naming its field instead of failing in the database.
//
// Dgraph keeps its indexes in Badger, whose keys hold at most 65,000 bytes, and an indexed value is part
// of its key: pg.name, pg.ocd_id and (through SearchKeys and SearchTokens, at most 1.5 times as long as
// the display name or alias they come from) pg.search_keys and pg.search_tokens are indexed whole. The
// limits keep every such value far below that, and every other value small enough to show and to write
// many to a batch, while leaving several times the room of the longest value in the default dataset.
//
// Lengths are in bytes of UTF-8 unless the comment says characters.
const (
	// MaxName bounds a resource name or a reference to one (name, from, to, via, source, said_by). A
	// valid name is shorter anyway ("organisations/" and a slug of at most 100 bytes); the limit lets an
	// over-long one be refused without quoting it.
	MaxName = 128

	// MaxDatesFrom bounds where a relation's dates come from (Relation.DatesFrom).
	MaxDatesFrom = 500
	// MaxDisplayName bounds how an entity is shown; it is indexed (as a search key).
	MaxDisplayName = 500
	// MaxAlias bounds each alias; each is indexed (as a search key).
	MaxAlias = 500
	// MaxAliases bounds how many aliases an entity has.
	MaxAliases = 100
	// MaxDescription bounds an entity's description (one sentence, or a paragraph for a dataset).
	MaxDescription = 10_000
	// MaxIdentifiers bounds how many external ids an entity has, counting every value of every scheme.
	MaxIdentifiers = 50
	// MaxIdentifierKey bounds the name of an external id ("ocd", "wikidata").
	MaxIdentifierKey = 64
	// MaxIdentifierValue bounds an external id; the Open Civic Data one is indexed.
	MaxIdentifierValue = 500

	// MaxTitle bounds a source's title (a document's title, or a post's first words).
	MaxTitle = 1_000
	// MaxOutlet bounds a source's publisher.
	MaxOutlet = 200
	// MaxAuthor bounds a source's author or authors.
	MaxAuthor = 500
	// MaxURL bounds a source's address: 2,048 bytes is the longest address browsers and search
	// engines reliably handle.
	MaxURL = 2_048

	// MaxRole bounds a relation's role, a short label ("Mayor", "Labour candidate").
	MaxRole = 200
	// MaxClaims bounds how many claims back one relation.
	MaxClaims = 1_000
	// MaxExcerpt bounds a claim's excerpt, in characters: an excerpt is at most one sentence.
	MaxExcerpt = 600

	// MaxRecordID bounds the id of the record a claim from structured data comes from.
	MaxRecordID = 500
	// MaxLicence bounds a source's licence (a name or an address).
	MaxLicence = 500
	// MaxLinks bounds how many links, images or contact details an entity has (each).
	MaxLinks = 100
	// MaxNote bounds the note of an alias, a link or a contact detail.
	MaxNote = 200
	// MaxGender bounds an entity's gender, as the source words it.
	MaxGender = 50
	// MaxLang bounds an alias's language tag (BCP 47).
	MaxLang = 35
	// MaxContactType bounds a contact detail's type ("email", "phone", "twitter").
	MaxContactType = 50
	// MaxContactValue bounds a contact detail's value.
	MaxContactValue = 500

	// MaxRecordBytes bounds one record as written: one line of a dataset file.
	MaxRecordBytes = 16 << 20
)

// ControlAt returns the byte offset and the rune of the first control character in s that a field may
// not hold, or -1 and 0 when there is none. No field may hold a C0 control character (U+0000 to U+001F,
// which include the line breaks), DEL (U+007F) or a C1 control character (U+0080 to U+009F): they are
// invisible, break a record shown on one line, and NUL ends strings in much software. Free text (a
// title, a description, an excerpt) may hold tabs, which read as spaces and are harmless to store.
func ControlAt(s string, freeText bool) (int, rune) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && !(freeText && c == '\t')) || c == 0x7f {
				return i, rune(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r >= 0x80 && r <= 0x9f {
			return i, r
		}
		i += n
	}
	return -1, 0
}

// MaxQueryLength bounds names and search text, in bytes.
const MaxQueryLength = 200
