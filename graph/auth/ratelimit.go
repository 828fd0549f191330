package auth

import (
	"math"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/polgraph/polgraph/graph"
)

// Rate is a token bucket's settings: PerSecond calls on average, up to Burst at once. A zero PerSecond
// means no limit.
type Rate struct {
	PerSecond float64
	Burst     int
}

// Rates are the per-principal limits: one bucket for reads and one for writes per principal (a key, a
// certificate, or an anonymous caller's network address).
type Rates struct {
	Reads  Rate // methods that need the reader role
	Writes Rate // methods that need the editor or admin role
}

// DefaultRates limit writes per principal and leave reads to the per-method turns (graph/rpc.Limits),
// which already keep one kind of read from starving the others.
func DefaultRates() Rates {
	return Rates{Reads: Rate{Burst: 100}, Writes: Rate{PerSecond: 20, Burst: 100}}
}

// failedLookups bounds how often one network address may present keys that are not valid, each of which
// costs a database lookup: a flood of made-up keys is refused before it reaches the database.
var failedLookups = Rate{PerSecond: 5, Burst: 50}

// RateLimiter keeps a token bucket (x/time/rate) per principal and kind of call. It forgets buckets that
// have filled up again (which are as good as new), so memory stays bounded by the principals active in the
// last minutes.
type RateLimiter struct {
	rates Rates
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	adds    int
}

// NewRateLimiter returns a RateLimiter with these rates.
func NewRateLimiter(rates Rates) *RateLimiter {
	return &RateLimiter{rates: rates, now: time.Now, buckets: map[string]*rate.Limiter{}}
}

// Allow takes a turn for p's call of a method that needs the role need: nil, or a ResourceExhausted error
// with the reason RATE_LIMITED whose RetryAfter says when the next call would be let through. Methods
// anyone may call (NoRole) are not limited.
func (l *RateLimiter) Allow(p Principal, need Role) error {
	if need == NoRole {
		return nil
	}
	r, kind := l.rates.Reads, "reads"
	if need >= Editor {
		r, kind = l.rates.Writes, "writes"
	}
	if r.PerSecond <= 0 {
		return nil
	}
	if wait, ok := l.take(kind+"|"+p.bucketKey(), r, true); !ok {
		return &graph.Error{Op: "auth.RateLimiter", Kind: graph.ResourceExhausted, Reason: "RATE_LIMITED", RetryAfter: wait,
			Message: "too many " + kind + " by " + p.String() + " (at most " + rateText(r) + "); try again in " + wait.String()}
	}
	return nil
}

// AllowLookup reports whether a key from this address that is not yet known may be looked up, or the
// address has presented too many invalid keys lately (ResourceExhausted, reason TOO_MANY_INVALID_KEYS).
func (l *RateLimiter) AllowLookup(address string) error {
	if wait, ok := l.take("lookup|"+address, failedLookups, false); !ok {
		return &graph.Error{Op: "auth.RateLimiter", Kind: graph.ResourceExhausted, Reason: "TOO_MANY_INVALID_KEYS", RetryAfter: wait,
			Message: "too many invalid API keys from " + address + "; try again in " + wait.String()}
	}
	return nil
}

// LookupFailed charges a failed key lookup to its address.
func (l *RateLimiter) LookupFailed(address string) {
	l.take("lookup|"+address, failedLookups, true)
}

// take takes a token from the named bucket when it has one (and consume is set), or says how long until
// it will.
func (l *RateLimiter) take(name string, r Rate, consume bool) (time.Duration, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[name]
	if !ok {
		b = rate.NewLimiter(rate.Limit(r.PerSecond), max(r.Burst, 1))
		l.buckets[name] = b
		l.adds++
		if l.adds%1024 == 0 {
			l.sweep(now)
		}
	}
	if tokens := b.TokensAt(now); tokens < 1 {
		wait := time.Duration(math.Ceil((1 - tokens) / r.PerSecond * float64(time.Second)))
		return max(wait.Round(time.Millisecond), time.Millisecond), false
	}
	if consume {
		b.AllowN(now, 1)
	}
	return 0, true
}

// sweep forgets the buckets that are full again.
func (l *RateLimiter) sweep(now time.Time) {
	for name, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, name)
		}
	}
}

// Buckets returns how many buckets the limiter holds (for tests).
func (l *RateLimiter) Buckets() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

func rateText(r Rate) string {
	return strconv.FormatFloat(r.PerSecond, 'f', -1, 64) + "/s, bursts of " + strconv.Itoa(max(r.Burst, 1))
}
