package dgraph

import (
	"context"
	"strconv"
	"time"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.ChangeScanner = (*Store)(nil)

// scanPage is how many changes one query of ScanChanges reads.
const scanPage = 5000

// ScanChanges implements graph.ChangeScanner: pages by uid, each its own query, so that reading a
// hundred thousand changes costs what reading them once does (ListChanges' offsets read every page
// before the one asked for again). Each change holds its time, resource, action and before only.
func (s *Store) ScanChanges(ctx context.Context, since time.Time, each func([]graph.Change) error) error {
	const op = "dgraph.ScanChanges"
	vars := map[string]string{"$since": strconv.FormatInt(since.UnixMilli(), 10), "$first": strconv.Itoa(scanPage), "$after": "0x0"}
	for {
		var res struct {
			Q []struct {
				UID string `json:"uid"`
				changeJSON
			} `json:"q"`
		}
		q := `query q($since: int, $first: int, $after: string) {
  q(func: ge(pg.change_at, $since), first: $first, after: $after) { uid pg.change_at pg.change_resource pg.change_action pg.change_before }
}`
		if err := s.query(ctx, op, q, vars, &res); err != nil {
			return err
		}
		if len(res.Q) == 0 {
			return nil
		}
		page := make([]graph.Change, len(res.Q))
		for i, r := range res.Q {
			page[i] = r.change()
		}
		if err := each(page); err != nil {
			return err
		}
		if len(res.Q) < scanPage {
			return nil
		}
		vars["$after"] = res.Q[len(res.Q)-1].UID
	}
}
