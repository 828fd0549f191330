package dgraphlocal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/polgraph/polgraph/graph/dgraph"
)

// Admin runs Dgraph's binary backups and restores on one alpha's HTTP port, logged in as groot with the
// admin token. Dgraph v25 (open source) takes them through /admin: full and incremental backups to a
// folder on the alpha's machine, and restores of a series to a chosen backup into a running Dgraph.
type Admin struct {
	c             aclClient
	grootPassword string
}

// Administrator is an Admin of the cluster's first alpha.
func (c *Cluster) Administrator() Admin {
	return Admin{c: aclClient{base: c.cfg.alphaHTTP(), token: c.secrets.AuthToken, http: c.cfg.httpClient()}, grootPassword: c.secrets.GrootPassword}
}

// AlphaCount is how many alphas the cluster runs.
func (c *Cluster) AlphaCount() int { return len(c.alphas) }

// AlphaService is how polgraph logs in to alpha i alone (0 is the first), to read what that alpha holds.
func (c *Cluster) AlphaService(i int) dgraph.Config {
	cfg := c.Service()
	cfg.Addr = c.cfg.alphaAddr(i)
	return cfg
}

// AdministratorOf is an Admin of alpha i (0 is the first).
func (c *Cluster) AdministratorOf(i int) Admin {
	return Admin{c: aclClient{base: c.cfg.alphaHTTPOf(i), token: c.secrets.AuthToken, http: c.cfg.httpClient()}, grootPassword: c.secrets.GrootPassword}
}

var (
	restoreProposal = regexp.MustCompile(`Got restore proposal at Index: (\d+)`)
	snapshotAt      = regexp.MustCompile(`Creating snapshot at Index: (\d+)|Skipping snapshot at \d+, because found one at (\d+)`)
)

// WaitRestoreSnapshotted waits until every alpha has recorded the last restore it applied in a Raft
// snapshot, as each alpha's log says. Until then a restarted alpha replays the restore from its
// write-ahead log: it drops everything and reads the backup's folder again, which may be gone. Dgraph's
// group leader proposes that snapshot as a restore ends.
func (c *Cluster) WaitRestoreSnapshotted(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, a := range c.alphas {
		path := filepath.Join(c.cfg.DataDir, "logs", a.name+".log")
		for {
			done, err := restoreSnapshotted(path)
			if err != nil || done {
				if err != nil {
					return err
				}
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("dgraph %s has not recorded the restore in a snapshot after %v (see %s): a restart would replay it", a.name, timeout, path)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

// restoreSnapshotted reads an alpha's log: whether a snapshot at or past its last restore proposal
// follows it.
func restoreSnapshotted(path string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	locs := restoreProposal.FindAllSubmatchIndex(b, -1)
	if len(locs) == 0 {
		return false, fmt.Errorf("%s shows no restore", path)
	}
	last := locs[len(locs)-1]
	restored, _ := strconv.ParseUint(string(b[last[2]:last[3]]), 10, 64)
	for _, m := range snapshotAt.FindAllSubmatch(b[last[1]:], -1) {
		idx := m[1]
		if len(idx) == 0 {
			idx = m[2]
		}
		if n, _ := strconv.ParseUint(string(idx), 10, 64); n >= restored {
			return true, nil
		}
	}
	return false, nil
}

// AdministratorAt is an Admin of the alpha whose gRPC address is grpcAddr (its HTTP port 1000 below, as
// Dgraph places them), with the secrets of the local Dgraph in dataDir.
func AdministratorAt(dataDir, grpcAddr string) (Admin, error) {
	s, err := ReadSecrets(dataDir)
	if err != nil {
		return Admin{}, fmt.Errorf("the local Dgraph's secrets in %s: %w", SecretsDir(dataDir), err)
	}
	host, port, err := net.SplitHostPort(grpcAddr)
	if err != nil {
		return Admin{}, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return Admin{}, fmt.Errorf("the alpha's port %q: %w", port, err)
	}
	base := "http://" + net.JoinHostPort(host, strconv.Itoa(p-1000))
	return Admin{c: aclClient{base: base, token: s.AuthToken, http: http.DefaultClient}, grootPassword: s.GrootPassword}, nil
}

func (a Admin) run(ctx context.Context, query string, vars map[string]any, out any) error {
	jwt, err := a.c.login(ctx, "groot", a.grootPassword)
	if err != nil {
		return fmt.Errorf("log in to Dgraph at %s as groot: %w", a.c.base, err)
	}
	return a.c.admin(ctx, jwt, query, vars, out)
}

// Backup has the alpha write a backup to the folder dest on its machine (an absolute path): a full one
// when full or when dest holds none, else one of what changed since the last backup there. It returns
// when Dgraph reports the backup done, and fails when Dgraph reports it failed.
func (a Admin) Backup(ctx context.Context, dest string, full bool) error {
	var got struct {
		Backup struct {
			TaskID string `json:"taskId"`
		} `json:"backup"`
	}
	if err := a.run(ctx, `mutation($d: String!, $f: Boolean) { backup(input: {destination: $d, forceFull: $f}) { taskId } }`,
		map[string]any{"d": dest, "f": full}, &got); err != nil {
		return fmt.Errorf("start Dgraph's backup: %w", err)
	}
	return a.waitTask(ctx, "backup", got.Backup.TaskID, dest)
}

// Export has the cluster write everything it holds, as RDF in gzip files, one per group, into a new folder
// under dest on the alpha's machine (an absolute path), at one timestamp. It returns when Dgraph reports
// the export done.
func (a Admin) Export(ctx context.Context, dest string) error {
	var got struct {
		Export struct {
			TaskID string `json:"taskId"`
		} `json:"export"`
	}
	if err := a.run(ctx, `mutation($d: String!) { export(input: {format: "rdf", destination: $d}) { taskId } }`,
		map[string]any{"d": dest}, &got); err != nil {
		return fmt.Errorf("start Dgraph's export: %w", err)
	}
	return a.waitTask(ctx, "export", got.Export.TaskID, dest)
}

// waitTask polls Dgraph's task id (a backup or an export to dest) until it succeeds or fails.
func (a Admin) waitTask(ctx context.Context, what, id, dest string) error {
	if id == "" {
		return fmt.Errorf("Dgraph queued no %s task", what)
	}
	for {
		var t struct {
			Task struct{ Status string } `json:"task"`
		}
		if err := a.run(ctx, `query($id: String!) { task(input: {id: $id}) { status } }`, map[string]any{"id": id}, &t); err != nil {
			return fmt.Errorf("ask Dgraph how its %s %s went: %w", what, id, err)
		}
		switch t.Task.Status {
		case "Success":
			return nil
		case "Failed", "Unknown":
			return fmt.Errorf("Dgraph's %s %s to %s %s: see the alpha's log", what, id, dest, t.Task.Status)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Restore has the alpha replace everything it holds with the backup series backupID in the folder
// location on its machine, up to its backup number num, and waits until the alpha reports the restore
// over. The alpha refuses other calls meanwhile.
func (a Admin) Restore(ctx context.Context, location, backupID string, num int) error {
	var got struct {
		Restore struct{ Code, Message string } `json:"restore"`
	}
	if err := a.run(ctx, `mutation($l: String!, $id: String, $n: Int) { restore(input: {location: $l, backupId: $id, backupNum: $n}) { code message } }`,
		map[string]any{"l": location, "id": backupID, "n": num}, &got); err != nil {
		return fmt.Errorf("start Dgraph's restore: %w", err)
	}
	if got.Restore.Code != "Success" {
		return fmt.Errorf("Dgraph refused the restore: %s", got.Restore.Message)
	}
	// The restore runs in the background; /health lists it among the alpha's ongoing operations.
	time.Sleep(200 * time.Millisecond)
	return a.WaitRestored(ctx)
}

// WaitRestored waits until the alpha runs no restore. Each alpha of a group restores on its own when it
// applies the group's restore proposal.
func (a Admin) WaitRestored(ctx context.Context) error {
	for {
		ongoing, err := a.ongoing(ctx)
		if err == nil && !slices.Contains(ongoing, "opRestore") {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ongoing lists the operations /health says the alpha is running (opRestore, opRollup, …).
func (a Admin) ongoing(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.c.base+"/health", nil)
	resp, err := a.c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	var h []struct {
		Ongoing []string `json:"ongoing"`
	}
	if err := json.Unmarshal(b, &h); err != nil || len(h) == 0 {
		return nil, fmt.Errorf("Dgraph /health answered %d: %.200s", resp.StatusCode, b)
	}
	return h[0].Ongoing, nil
}

// DataDir is the cluster's data folder (absolute), where its alphas may write exports.
func (c *Cluster) DataDir() string {
	d, _ := filepath.Abs(c.cfg.DataDir)
	return d
}
