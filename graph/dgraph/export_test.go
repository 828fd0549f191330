package dgraph

import (
	"time"

	"github.com/polgraph/polgraph/graph"
)

// SetLeaseTime shortens bulk loads' holds, for tests of their lapse.
func SetLeaseTime(s *Store, d time.Duration) { s.leaseTime = d }

// Abandon stops a bulk load's renewals without releasing its hold, as a load that died would.
func Abandon(b graph.Bulk) {
	bb := b.(*bulk)
	close(bb.stop)
	<-bb.stopped
}
