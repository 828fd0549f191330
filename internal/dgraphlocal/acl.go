package dgraphlocal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/schema"
)

// defaultGrootPassword is the password Dgraph gives groot when it first starts with ACL on; bootstrap
// replaces it at once. Nobody can use it meanwhile: a login needs the admin token too.
const defaultGrootPassword = "password"

// errBadLogin is a login Dgraph refused for a wrong user or password.
var errBadLogin = errors.New("invalid username or password")

// bootstrapACL makes the running alpha's users what polgraph expects: groot with the password from the
// secrets, and the polgraph user in a group allowed to read, write and alter polgraph's predicates only.
// It is idempotent, so every start runs it (a schema that gained predicates gains their rules too).
func bootstrapACL(ctx context.Context, c aclClient, s Secrets, log *slog.Logger) error {
	var jwt string
	// The alpha writes groot shortly after it reports healthy: until then every login fails, so retry a
	// while before concluding that groot's password is not one polgraph knows.
	deadline := time.Now().Add(15 * time.Second)
	for {
		var err error
		jwt, err = c.login(ctx, "groot", s.GrootPassword)
		if errors.Is(err, errBadLogin) {
			// A fresh Dgraph: groot still has its default password. Replace it.
			if jwt, err = c.login(ctx, "groot", defaultGrootPassword); err == nil {
				if err = c.admin(ctx, jwt, `mutation($pw: String!) { updateUser(input: {filter: {name: {eq: "groot"}}, set: {password: $pw}}) { user { name } } }`,
					map[string]any{"pw": s.GrootPassword}, nil); err == nil {
					log.Info("Dgraph ACL: groot's password set", "secrets", s.Dir)
					jwt, err = c.login(ctx, "groot", s.GrootPassword)
				}
			}
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if errors.Is(err, errBadLogin) {
				return fmt.Errorf("Dgraph refuses groot's password from %s: were the secrets replaced? Restore them, or start from an empty data folder", s.Dir)
			}
			return fmt.Errorf("log in to Dgraph as groot: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	rules := []map[string]any{{"predicate": "dgraph.type", "permission": 6}} // read and write, never alter
	for _, p := range schema.Predicates() {
		rules = append(rules, map[string]any{"predicate": p, "permission": 7}) // read, write, alter
	}
	for _, p := range schema.Reverses() {
		// Dgraph's ACL treats ~p as a predicate of its own, and silently leaves out of an answer what a
		// user may not read: without these, walks along relations would find nothing.
		rules = append(rules, map[string]any{"predicate": "~" + p, "permission": 4})
	}
	var got struct {
		Group *struct{ Name string } `json:"getGroup"`
		User  *struct{ Name string } `json:"getUser"`
	}
	if err := c.admin(ctx, jwt, `query($g: String!, $u: String!) { getGroup(name: $g) { name } getUser(name: $u) { name } }`,
		map[string]any{"g": serviceGroup, "u": ServiceUser}, &got); err != nil {
		return err
	}
	if got.Group == nil {
		if err := c.admin(ctx, jwt, `mutation($g: String!, $rules: [RuleRef]) { addGroup(input: [{name: $g, rules: $rules}]) { group { name } } }`,
			map[string]any{"g": serviceGroup, "rules": rules}, nil); err != nil {
			return err
		}
	} else if err := c.admin(ctx, jwt, `mutation($g: String!, $rules: [RuleRef!]!) { updateGroup(input: {filter: {name: {eq: $g}}, set: {rules: $rules}}) { group { name } } }`,
		map[string]any{"g": serviceGroup, "rules": rules}, nil); err != nil {
		return err
	}
	if got.User == nil {
		return c.admin(ctx, jwt, `mutation($u: String!, $pw: String!, $g: String!) { addUser(input: [{name: $u, password: $pw, groups: [{name: $g}]}]) { user { name } } }`,
			map[string]any{"u": ServiceUser, "pw": s.ServicePassword, "g": serviceGroup}, nil)
	}
	return c.admin(ctx, jwt, `mutation($u: String!, $pw: String!, $g: String!) { updateUser(input: {filter: {name: {eq: $u}}, set: {password: $pw, groups: [{name: $g}]}}) { user { name } } }`,
		map[string]any{"u": ServiceUser, "pw": s.ServicePassword, "g": serviceGroup}, nil)
}

// aclClient talks to an alpha's HTTP port with the admin token.
type aclClient struct {
	base, token string
	http        *http.Client
}

// login logs in over the alpha's HTTP port and returns the access token.
func (c aclClient) login(ctx context.Context, user, password string) (string, error) {
	body, _ := json.Marshal(map[string]string{"userid": user, "password": password})
	var resp struct {
		Data struct {
			AccessJWT string `json:"accessJWT"`
		} `json:"data"`
		Errors []struct{ Message string } `json:"errors"`
	}
	if err := c.post(ctx, "/login", "", body, &resp); err != nil {
		return "", err
	}
	if len(resp.Errors) > 0 {
		if strings.Contains(resp.Errors[0].Message, "invalid username or password") {
			return "", errBadLogin
		}
		return "", errors.New(resp.Errors[0].Message)
	}
	return resp.Data.AccessJWT, nil
}

// admin runs a GraphQL operation on the alpha's /admin endpoint as the user of jwt.
func (c aclClient) admin(ctx context.Context, jwt, query string, vars map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	var resp struct {
		Data   json.RawMessage            `json:"data"`
		Errors []struct{ Message string } `json:"errors"`
	}
	if err := c.post(ctx, "/admin", jwt, body, &resp); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		return fmt.Errorf("Dgraph /admin: %s", resp.Errors[0].Message)
	}
	if out != nil {
		return json.Unmarshal(resp.Data, out)
	}
	return nil
}

func (c aclClient) post(ctx context.Context, path, jwt string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Dgraph-AuthToken", c.token)
	if jwt != "" {
		req.Header.Set("X-Dgraph-AccessToken", jwt)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("Dgraph %s answered %d: %.200s", path, resp.StatusCode, b)
	}
	return nil
}

// waitACL waits until every alpha applies the access rules bootstrapACL set: polgraph's user may write its
// predicates through each of them. Alphas learn of the rules on their own schedule, and one that has not
// yet refuses polgraph's writes (or silently shows it nothing). The probe is a write that is never
// committed.
func (c *Cluster) waitACL(ctx context.Context) error {
	svc := c.Service()
	deadline := time.Now().Add(60 * time.Second)
	for i := range c.alphas {
		var err error
		for {
			if err = c.probeACL(ctx, c.cfg.alphaAddr(i), svc); err == nil {
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("Dgraph %s does not let polgraph's user write a minute after the access rules were set: %w", c.alphas[i].name, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// probeACL logs in to one alpha as polgraph's user and writes, without committing, dgraph.type (which
// polgraph may write, and which every Dgraph defines: the probe defines nothing).
func (c *Cluster) probeACL(ctx context.Context, addr string, svc dgraph.Config) error {
	creds := insecure.NewCredentials()
	if t := c.cfg.clientTLS(); t != nil {
		creds = credentials.NewTLS(t)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(ctx, "auth-token", svc.AuthToken), 5*time.Second)
	defer cancel()
	dg := dgo.NewDgraphClient(api.NewDgraphClient(conn))
	if err := dg.Login(ctx, svc.User, svc.Password); err != nil {
		return err
	}
	txn := dg.NewTxn()
	defer txn.Discard(ctx)
	_, err = txn.Mutate(ctx, &api.Mutation{SetNquads: []byte(`_:probe <dgraph.type> "AclProbe" .`)})
	return err
}
