package dgraph

import "testing"

// TestShownVersion reads the meta block's version wherever it stands in the answer, and refuses what is
// not an answer.
func TestShownVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer string
		want   int64
		bad    bool
	}{
		{answer: `{"meta":[{"pg.version":7}],"q":[{"pg.name":"a"}]}`, want: 7},
		{answer: `{"q":[{"pg.name":"meta","x":{"meta":[]}}],"meta":[{"pg.version":9}]}`, want: 9},
		{answer: `{"meta":[{"pg.version":3},{"pg.version":5}]}`, want: 5},
		{answer: `{"meta":[],"q":[]}`, want: 0},
		{answer: `{"q":[]}`, want: 0},
		{answer: `[]`, bad: true},
		{answer: `{"meta":[{"pg.version":"7"}]}`, bad: true},
		{answer: `{"q":[`, bad: true},
	} {
		got, err := shownVersion([]byte(tc.answer))
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("shownVersion(%s) = %d, %v; want %d, error %v", tc.answer, got, err, tc.want, tc.bad)
		}
	}
}
