package graph

import (
	"strings"
	"unicode"
)

// foldAccents maps accented Latin letters to plain ones, for matching names typed without them.
var foldAccents = strings.NewReplacer(
	"á", "a", "à", "a", "â", "a", "ä", "a", "ã", "a", "å", "a", "ā", "a",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "ē", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i", "ī", "i",
	"ó", "o", "ò", "o", "ô", "o", "ö", "o", "õ", "o", "ø", "o", "ō", "o",
	"ú", "u", "ù", "u", "û", "u", "ü", "u", "ū", "u",
	"ç", "c", "ñ", "n", "ß", "ss", "’", "", "'", "", "‘", "",
)

// NormalizeName is the form names are matched in: lower case, accents folded, apostrophes dropped, every
// other run of punctuation or space made one space. "Lutfur  Rahman's" and "lutfur rahmans" match.
func NormalizeName(s string) string {
	s = foldAccents.Replace(strings.ToLower(s))
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		} else {
			space = true
		}
	}
	return b.String()
}

// SearchKeys returns the normalised display name and aliases of an entity, without repeats.
func (e Entity) SearchKeys() []string {
	seen := map[string]bool{}
	var keys []string
	for _, n := range append([]string{e.DisplayName}, e.Aliases...) {
		if k := NormalizeName(n); k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}
