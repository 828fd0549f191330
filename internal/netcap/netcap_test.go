package netcap

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// dialer opens connections to l and keeps them, so a test can see which the listener closed.
type dialer struct {
	t     *testing.T
	addr  string
	conns []net.Conn
}

func (d *dialer) open(speak bool) net.Conn {
	d.t.Helper()
	c, err := net.Dial("tcp", d.addr)
	if err != nil {
		d.t.Fatal(err)
	}
	if speak {
		c.Write([]byte("x"))
	}
	d.conns = append(d.conns, c)
	return c
}

// waitFor waits until cond holds, failing the test after 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
	}
}

// closedByServer reports whether the server closed c: a read sees EOF (or a reset) within a moment.
func closedByServer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var b [1]byte
	_, err := c.Read(b[:])
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return err != nil
}

// serveAll accepts and reads every connection until it closes, as a server would.
func serveAll(l *Listener, accepted chan<- net.Conn) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		accepted <- c
		go io.Copy(io.Discard, c)
	}
}

func TestCaps(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		// speaks says, for each connection opened in turn, whether it sends a byte at once.
		speaks []bool
		// closed lists the connections (by index) the listener must have closed at the end.
		closed []int
		events []Event
	}{
		{"under the caps", Limits{PerAddress: 3, Total: 3}, []bool{true, false, true}, nil, nil},
		{"silent ones make room, oldest first", Limits{PerAddress: 3}, []bool{false, true, false, true, true}, []int{0, 2},
			[]Event{{Evicted: true, Cap: "address"}, {Evicted: true, Cap: "address"}}},
		{"speakers are kept: the newcomer is refused", Limits{PerAddress: 2}, []bool{true, true, true}, []int{2},
			[]Event{{Cap: "address"}}},
		{"the total cap evicts too", Limits{Total: 2}, []bool{false, true, true}, []int{0},
			[]Event{{Evicted: true, Cap: "total"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var events []Event
			refused := make(chan struct{}, 100)
			l := Wrap(inner, tt.limits, func(e Event) {
				mu.Lock()
				events = append(events, e)
				mu.Unlock()
				if !e.Evicted {
					refused <- struct{}{}
				}
			})
			defer l.Close()
			accepted := make(chan net.Conn, 100)
			go serveAll(l, accepted)
			d := &dialer{t: t, addr: inner.Addr().String()}
			for i, speak := range tt.speaks {
				d.open(speak)
				// The listener refuses it, or lets it in and the server reads its byte, before the next one.
				select {
				case c := <-accepted:
					if speak {
						waitFor(t, func() bool { return c.(*conn).spoke.Load() })
					}
				case <-refused:
				case <-time.After(5 * time.Second):
					t.Fatalf("connection %d was neither let in nor refused in 5 s", i)
				}
			}
			want := map[int]bool{}
			for _, i := range tt.closed {
				want[i] = true
			}
			for i, c := range d.conns {
				if got := closedByServer(c); got != want[i] {
					t.Errorf("connection %d closed by the listener: %v, want %v", i, got, want[i])
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(events) != len(tt.events) {
				t.Fatalf("events %v, want %v", events, tt.events)
			}
			for i := range events {
				if events[i] != tt.events[i] {
					t.Errorf("event %d: %v, want %v", i, events[i], tt.events[i])
				}
			}
			if open, want := l.Open(), int64(len(tt.speaks)-len(tt.closed)); open != want {
				t.Errorf("%d open, want %d", open, want)
			}
		})
	}
}
