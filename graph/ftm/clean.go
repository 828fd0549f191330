package ftm

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
)

// maxIDLength and idPattern are FollowTheMoney's own rule for an entity id (followthemoney/types/
// entity.py and util.py's ENTITY_ID_LEN): letters, digits, dots and hyphens, beginning and ending with a
// letter or digit, at most 200 bytes. An id that passes is short enough for every polgraph field it goes
// to (a claim's record, an identifier) and holds no control character.
const maxIDLength = 200

var idPattern = regexp.MustCompile(`^[0-9a-zA-Z]([0-9a-zA-Z.\-]*[0-9a-zA-Z])?$`)

// validID reports whether s is a FollowTheMoney entity id.
func validID(s string) bool { return len(s) <= maxIDLength && idPattern.MatchString(s) }

// normalizeSpace makes every run of white space in s (line breaks and tabs included) one space and trims
// the ends: FollowTheMoney text often holds line breaks, which no polgraph field may.
func normalizeSpace(s string) string {
	if s == "" {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// ellipsis marks a value cut to fit a limit.
const ellipsis = "…"

// cut shortens s to at most max bytes, at a rune boundary, ending it with an ellipsis.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimRight(s[:n], " ") + ellipsis
}

// quote shows a value from the input in a message, cut short: a report never repeats a long value.
func quote(s string) string {
	const most = 60
	if len(s) > most {
		n := most
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + ellipsis
	}
	return fmt.Sprintf("%q", s)
}

// controlName names a control character as a report shows it: U+0000 (NUL).
func controlName(c rune) string {
	name := map[rune]string{0: "NUL", '\t': "tab", '\n': "line feed", '\r': "carriage return", 0x1b: "escape", 0x7f: "DEL"}[c]
	if name == "" {
		return fmt.Sprintf("U+%04X", c)
	}
	return fmt.Sprintf("U+%04X (%s)", c, name)
}

// maxSlug is the longest slug graph.ValidSlug accepts.
const maxSlug = 100

// slugify makes a slug of text (graph.Slugify) of at most max bytes.
func slugify(text string, max int) string { return graph.TrimSlug(graph.Slugify(text), max) }

// shortHash is a short, deterministic slug made from s: the first 8 hex digits of its SHA-1.
func shortHash(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// parseDate reads a FollowTheMoney date, an ISO 8601 prefix (2021, 2021-02, 2021-02-16 or
// 2021-02-16T21:48:52), and keeps its date: YYYY, YYYY-MM or YYYY-MM-DD.
func parseDate(s string) (graph.FuzzyDate, error) {
	d := s
	if len(d) > 10 {
		if d[10] != 'T' && d[10] != ' ' {
			return graph.FuzzyDate{}, fmt.Errorf("%s is not a date: want an ISO 8601 date such as 2021, 2021-02 or 2021-02-16", quote(s))
		}
		d = d[:10]
	}
	fd, err := graph.ParseFuzzyDate(d)
	if err != nil {
		return graph.FuzzyDate{}, fmt.Errorf("%s is not a date: want an ISO 8601 date such as 2021, 2021-02 or 2021-02-16", quote(s))
	}
	return fd, nil
}

// webURL reports whether s is an absolute http or https address: the only links polgraph shows, so
// that a javascript: or data: address in the input never becomes a link.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
