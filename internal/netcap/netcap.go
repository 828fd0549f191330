// Package netcap caps the connections a listener holds open, per client address and in all, so that one
// client opening connections it never uses cannot take the process to its file-descriptor limit and
// starve everyone else.
//
// When a new connection would pass a cap, the oldest connection under that cap that has not yet sent a
// byte is closed to make room for it (a half-open connection costs a descriptor and does nothing); when
// every connection under the cap has sent something, the new one is closed at once. A client that
// connects and speaks at once (a gRPC client sends its preface, a browser its request) is therefore
// served however many silent connections are held open around it.
package netcap

import (
	"container/list"
	"net"
	"sync"
	"sync/atomic"
)

// Limits are a listener's caps. Zero means no cap.
type Limits struct {
	PerAddress int // connections open from one client address (its IP, without the port)
	Total      int // connections open in all
}

// DefaultLimits keep the two listeners of a polgraph (gRPC and HTTP) well under a descriptor limit of
// 20,000, beside Dgraph's connections and files, and let one address (a NAT, an office proxy) open
// hundreds of connections.
var DefaultLimits = Limits{PerAddress: 512, Total: 4096}

// Event is what a listener tells its hook: a connection closed to make room (Evicted), or refused at
// once (Refused), and under which cap ("address" or "total").
type Event struct {
	Evicted bool
	Cap     string
}

// Listener is a net.Listener whose connections are capped.
type Listener struct {
	net.Listener
	limits Limits
	hook   func(Event)

	mu     sync.Mutex
	all    list.List // of *conn, oldest first
	byAddr map[string]int
	silent map[string]*list.List // per address, the connections that have not sent a byte, oldest first
	open   atomic.Int64
}

// Wrap caps lis's connections; hook, when not nil, hears of every connection closed or refused to keep a
// cap (it is called without locks held).
func Wrap(lis net.Listener, limits Limits, hook func(Event)) *Listener {
	return &Listener{Listener: lis, limits: limits, hook: hook, byAddr: map[string]int{}, silent: map[string]*list.List{}}
}

// Open is how many connections are open.
func (l *Listener) Open() int64 { return l.open.Load() }

// Accept waits for the next connection that the caps let in.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if wc, ok := l.admit(c); ok {
			return wc, nil
		}
	}
}

type conn struct {
	net.Conn
	l      *Listener
	addr   string
	inAll  *list.Element
	inAddr *list.Element // nil once it has sent a byte
	spoke  atomic.Bool
	closed sync.Once
}

// admit makes room for c under both caps, or refuses it.
func (l *Listener) admit(c net.Conn) (net.Conn, bool) {
	addr := host(c.RemoteAddr())
	var victims []*conn
	var events []Event
	l.mu.Lock()
	if l.limits.PerAddress > 0 && l.byAddr[addr] >= l.limits.PerAddress {
		if v := l.oldestSilent(addr); v != nil {
			victims = append(victims, v)
			events = append(events, Event{Evicted: true, Cap: "address"})
		} else {
			l.mu.Unlock()
			c.Close()
			l.tell(Event{Cap: "address"})
			return nil, false
		}
	}
	if l.limits.Total > 0 && int(l.open.Load())-len(victims) >= l.limits.Total {
		if v := l.oldestSilentAnywhere(victims); v != nil {
			victims = append(victims, v)
			events = append(events, Event{Evicted: true, Cap: "total"})
		} else {
			for _, v := range victims {
				l.restore(v)
			}
			l.mu.Unlock()
			c.Close()
			l.tell(Event{Cap: "total"})
			return nil, false
		}
	}
	wc := &conn{Conn: c, l: l, addr: addr}
	wc.inAll = l.all.PushBack(wc)
	l.byAddr[addr]++
	s := l.silent[addr]
	if s == nil {
		s = list.New()
		l.silent[addr] = s
	}
	wc.inAddr = s.PushBack(wc)
	l.open.Add(1)
	l.mu.Unlock()
	for _, v := range victims {
		v.Close()
	}
	for _, e := range events {
		l.tell(e)
	}
	return wc, true
}

func (l *Listener) tell(e Event) {
	if l.hook != nil {
		l.hook(e)
	}
}

// oldestSilent takes out of the silent list the oldest connection from addr that has not spoken.
func (l *Listener) oldestSilent(addr string) *conn {
	s := l.silent[addr]
	if s == nil || s.Len() == 0 {
		return nil
	}
	v := s.Remove(s.Front()).(*conn)
	v.inAddr = nil
	return v
}

// oldestSilentAnywhere is the oldest connection that has not spoken, from any address, not already among
// taken. It walks from the oldest connection: at the cap, silent ones are what an attack leaves.
func (l *Listener) oldestSilentAnywhere(taken []*conn) *conn {
	for e := l.all.Front(); e != nil; e = e.Next() {
		c := e.Value.(*conn)
		if c.inAddr == nil || containsConn(taken, c) {
			continue
		}
		l.silent[c.addr].Remove(c.inAddr)
		c.inAddr = nil
		return c
	}
	return nil
}

// restore puts back a connection chosen for eviction that is kept after all.
func (l *Listener) restore(c *conn) {
	if !c.spoke.Load() && c.inAddr == nil {
		c.inAddr = l.silent[c.addr].PushFront(c)
	}
}

func containsConn(cs []*conn, c *conn) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.spoke.Load() {
		c.spoke.Store(true)
		c.l.mu.Lock()
		if c.inAddr != nil {
			c.l.silent[c.addr].Remove(c.inAddr)
			c.inAddr = nil
		}
		c.l.mu.Unlock()
	}
	return n, err
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.closed.Do(func() {
		l := c.l
		l.mu.Lock()
		l.all.Remove(c.inAll)
		if c.inAddr != nil {
			l.silent[c.addr].Remove(c.inAddr)
			c.inAddr = nil
		}
		if l.byAddr[c.addr]--; l.byAddr[c.addr] <= 0 {
			delete(l.byAddr, c.addr)
			delete(l.silent, c.addr)
		}
		l.open.Add(-1)
		l.mu.Unlock()
	})
	return err
}

// host is an address's IP, without its port.
func host(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	s := a.String()
	if h, _, err := net.SplitHostPort(s); err == nil {
		return h
	}
	return s
}
