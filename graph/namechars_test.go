package graph_test

import (
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// TestInvisibleAt: names that look like other names are refused at the character that hides; the
// joiners that Persian and Indic names need are taken between their letters, and nowhere else.
func TestInvisibleAt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, s string
		at      int
		r       rune
	}{
		{"plain", "Keir Starmer", -1, 0},
		{"accents and other scripts", "Zoë O’Brien, Ynys Môn, Лутфур, 鲁特夫", -1, 0},
		{"a no-break space is a space", "Keir\u00a0Starmer", -1, 0},
		{"controls are ControlAt's", "Keir\x00\u0085", -1, 0},
		{"zero width space", "Keir\u200b Starmer", 4, 0x200b},
		{"right-to-left override", "\u202eremratS rieK", 0, 0x202e},
		{"right-to-left mark", "Keir\u200f", 4, 0x200f},
		{"Arabic letter mark", "a\u061c", 1, 0x61c},
		{"isolate", "\u2066Keir\u2069", 0, 0x2066},
		{"left-to-right embedding", "Keir\u202a", 4, 0x202a},
		{"soft hyphen", "Star\u00admer", 4, 0xad},
		{"byte order mark", "\ufeffKeir", 0, 0xfeff},
		{"word joiner", "Keir\u2060Starmer", 4, 0x2060},
		{"Hangul filler", "Keir\u3164", 4, 0x3164},
		{"variation selector", "Keir\ufe0f", 4, 0xfe0f},
		{"tag character", "Keir\U000e0041", 4, 0xe0041},
		{"line separator", "Keir\u2028Starmer", 4, 0x2028},
		{"Persian non-joiner between letters", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", -1, 0},
		{"Persian non-joiner after a vowel sign", "\u0645\u064e\u200c\u062e", -1, 0},
		{"Bengali joiner before a virama", "\u09b0\u200d\u09cd\u09af", -1, 0},
		{"Devanagari non-joiner", "\u0915\u094d\u200c\u0937", -1, 0},
		{"joiner between Latin letters", "Keir\u200dStarmer", 4, 0x200d},
		{"non-joiner between Latin letters", "Keir\u200cStarmer", 4, 0x200c},
		{"joiner between two scripts", "\u0645\u200ck", 2, 0x200c},
		{"joiner before a space", "\u0645\u200c \u0645", 2, 0x200c},
		{"joiner at the start", "\u200c\u0645", 0, 0x200c},
		{"joiner at the end", "\u0645\u200d", 2, 0x200d},
		{"two joiners", "\u0645\u200c\u200d\u0645", 2, 0x200c},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if at, r := graph.InvisibleAt(tc.s); at != tc.at || r != tc.r {
				t.Errorf("InvisibleAt(%+q) = %d, %U; want %d, %U", tc.s, at, r, tc.at, tc.r)
			}
		})
	}
}

func TestNameProblem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ s, want string }{
		{"Keir Starmer", ""},
		{"Keir\x00", "contains the control character U+0000 (NUL) at byte 5"},
		{"Keir\u200b Starmer", "contains the invisible character U+200B (zero width space) at byte 5; a name may hold no character that cannot be seen"},
		{"\u202eKeir", "contains the invisible character U+202E (right-to-left override) at byte 1; a name may hold no character that cannot be seen"},
		{"Keir\U000e0041", "contains the invisible character U+E0041 at byte 5; a name may hold no character that cannot be seen"},
	} {
		if got := graph.NameProblem(tc.s); got != tc.want {
			t.Errorf("NameProblem(%+q) = %q; want %q", tc.s, got, tc.want)
		}
	}
}
