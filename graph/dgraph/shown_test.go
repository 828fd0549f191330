package dgraph

import "testing"

// TestShownMeta reads the meta block's node, uid and version, wherever it stands in the answer, and refuses
// what is not an answer.
func TestShownMeta(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer  string
		want    int64
		wantUID string
		bad     bool
	}{
		{answer: `{"meta":[{"uid":"0x2a","pg.version":7}],"q":[{"pg.name":"a"}]}`, want: 7, wantUID: "0x2a"},
		{answer: `{"q":[{"pg.name":"meta","x":{"meta":[]}}],"meta":[{"uid":"0x9","pg.version":9}]}`, want: 9, wantUID: "0x9"},
		{answer: `{"meta":[{"uid":"0x1","pg.version":3},{"uid":"0x2","pg.version":5}]}`, want: 5, wantUID: "0x2"},
		{answer: `{"meta":[],"q":[]}`, want: 0},
		{answer: `{"q":[]}`, want: 0},
		{answer: `[]`, bad: true},
		{answer: `{"meta":[{"pg.version":"7"}]}`, bad: true},
		{answer: `{"q":[`, bad: true},
	} {
		uid, got, err := shownMeta([]byte(tc.answer))
		if (err != nil) != tc.bad || got != tc.want || uid != tc.wantUID {
			t.Errorf("shownMeta(%s) = %q, %d, %v; want %q, %d, error %v", tc.answer, uid, got, err, tc.wantUID, tc.want, tc.bad)
		}
	}
}
