package graph

import "strings"

// Truncate shortens user text quoted back in a message to at most n bytes and some, at a character
// boundary, and makes it valid UTF-8 (a message that is not cannot travel in a protobuf).
func Truncate(s string, n int) string {
	cut := len(s) > n
	if cut {
		end := 0
		for i := range s { // i: where each character starts
			if i > n {
				break
			}
			end = i
		}
		s = s[:end]
	}
	s = strings.ToValidUTF8(s, "\ufffd")
	if cut {
		s += "…"
	}
	return s
}
