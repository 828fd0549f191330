package dgraphlocal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// Group is one Dgraph group as zero sees it: its alphas by process name, which one leads, and the
// predicates it serves.
type Group struct {
	ID         int
	Members    []string // process names: "alpha", "alpha2", …
	Leader     string   // "" while the group has no leader
	Predicates []string
}

// Groups asks the cluster, as its administrator, for its groups: who is in each and who leads it. It needs
// ACL on (the administrator's login).
func (c *Cluster) Groups(ctx context.Context) ([]Group, error) {
	if c.cfg.Open {
		return nil, errors.New("the groups of a Dgraph without ACL are not asked for")
	}
	var lastErr error
	// Any alpha can answer; ask the next when one cannot (it may be the one just killed).
	for i := range c.alphas {
		acl := aclClient{base: c.cfg.alphaHTTPOf(i), token: c.secrets.AuthToken, http: c.cfg.httpClient()}
		jwt, err := acl.login(ctx, "groot", c.secrets.GrootPassword)
		if err != nil {
			lastErr = err
			continue
		}
		var got struct {
			State struct {
				Groups []struct {
					ID      json.Number
					Members []struct {
						Addr   string
						Leader bool
					}
					Tablets []struct{ Predicate string }
				}
			}
		}
		if err := acl.admin(ctx, jwt, `query { state { groups { id members { addr leader } tablets { predicate } } } }`, nil, &got); err != nil {
			lastErr = err
			continue
		}
		var out []Group
		for _, g := range got.State.Groups {
			id, _ := strconv.Atoi(g.ID.String())
			grp := Group{ID: id}
			for _, m := range g.Members {
				name := c.alphaNamed(m.Addr)
				grp.Members = append(grp.Members, name)
				if m.Leader {
					grp.Leader = name
				}
			}
			for _, t := range g.Tablets {
				grp.Predicates = append(grp.Predicates, predicateName(t.Predicate))
			}
			out = append(out, grp)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no alpha told the cluster's state: %w", lastErr)
}

// predicateName is a tablet's predicate without the namespace Dgraph may put before it ("0-pg.name", or
// eight bytes of namespace).
func predicateName(tablet string) string {
	if i := strings.IndexByte(tablet, '-'); i > 0 && strings.Trim(tablet[:i], "0123456789") == "" {
		return tablet[i+1:]
	}
	return strings.TrimLeft(tablet, "\x00")
}

// alphaNamed is the process name of the alpha whose internal address is addr (addr itself if none).
func (c *Cluster) alphaNamed(addr string) string {
	for i, a := range c.alphas {
		if addr == "127.0.0.1:"+strconv.Itoa(7080+c.cfg.PortOffset+i) {
			return a.name
		}
	}
	return addr
}

// Kill ends a Dgraph process at once (SIGKILL), as a crash would: "zero", "alpha", "alpha2", …
func (c *Cluster) Kill(name string) error {
	p := c.process(name)
	if p == nil {
		return fmt.Errorf("no dgraph process %q", name)
	}
	pid := p.pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill dgraph %s (pid %d): %w", name, pid, err)
	}
	<-p.exited()
	return nil
}

// Restart starts a Dgraph process that Kill ended, on the same data, when nothing supervises the cluster.
func (c *Cluster) Restart(name string) error {
	p := c.process(name)
	if p == nil {
		return fmt.Errorf("no dgraph process %q", name)
	}
	select {
	case <-p.exited():
	default:
		return fmt.Errorf("dgraph %s is running", name)
	}
	return p.start(c.cfg)
}

func (c *Cluster) process(name string) *proc {
	if name == "zero" {
		return c.zero
	}
	for _, a := range c.alphas {
		if a.name == name {
			return a
		}
	}
	return nil
}

// MoveTablet moves a predicate, with its data, to another group, as the administrator (Dgraph's own
// rebalancing does so by size; a test that wants the graph spread over groups moves predicates itself).
func (c *Cluster) MoveTablet(ctx context.Context, predicate string, group int) error {
	acl := aclClient{base: c.cfg.alphaHTTP(), token: c.secrets.AuthToken, http: c.cfg.httpClient()}
	jwt, err := acl.login(ctx, "groot", c.secrets.GrootPassword)
	if err != nil {
		return err
	}
	return acl.admin(ctx, jwt, `mutation($p: String!, $g: UInt64!) { moveTablet(input: {tablet: $p, groupId: $g}) { response { code message } } }`,
		map[string]any{"p": predicate, "g": group}, nil)
}
