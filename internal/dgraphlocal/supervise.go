package dgraphlocal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// proc is one Dgraph process (zero or an alpha), restarted with the same arguments when it dies.
type proc struct {
	name      string
	args, env []string
	secrets   []string // replaced in its log (redactor)

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// start runs the process, its output appended to logs/NAME.log under the data folder.
func (p *proc) start(cfg Config) error {
	logPath := filepath.Join(cfg.DataDir, "logs", p.name+".log")
	if err := redactFile(logPath, p.secrets); err != nil {
		return fmt.Errorf("redact the secrets in %s: %w", logPath, err)
	}
	file, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	// The output goes through a pipe of our own, copied to the log by a goroutine of our own: Wait then
	// returns when the process ends, even if a process it left behind still holds the pipe.
	r, w, err := os.Pipe()
	if err != nil {
		file.Close()
		return err
	}
	cmd := exec.Command(cfg.Binary, p.args...)
	cmd.Dir = cfg.DataDir
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = w, w
	// Own process group, so a terminal's Ctrl-C reaches polgraph, which stops Dgraph in order; and a
	// parent-death signal, so Dgraph never outlives a crashed polgraph.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		file.Close()
		return fmt.Errorf("start dgraph %s: %w", p.name, err)
	}
	log := newRedactor(file, p.secrets)
	go func() { io.Copy(log, r); r.Close(); log.Close() }()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	cfg.Logger.Debug("started dgraph", "process", p.name, "pid", cmd.Process.Pid)
	return nil
}

// exited is closed when the current run of the process ends.
func (p *proc) exited() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// pid is the current run's process id (0 before it started).
func (p *proc) pid() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// stop ends the process: SIGTERM, a second SIGTERM after a few seconds (zero sometimes needs it), then
// SIGKILL.
func (p *proc) stop() error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	for range 2 {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
			return nil
		case <-time.After(5 * time.Second):
		}
	}
	cmd.Process.Kill()
	<-done
	return fmt.Errorf("dgraph %s (pid %d) did not stop on SIGTERM and was killed", p.name, cmd.Process.Pid)
}

// PIDs returns the process ids of the zero and the first alpha (0 for one not started), so that a caller
// can watch them, e.g. read their peak memory from /proc/PID/status.
func (c *Cluster) PIDs() (zero, alpha int) {
	if len(c.alphas) > 0 {
		alpha = c.alphas[0].pid()
	}
	return c.zero.pid(), alpha
}

// Processes returns the current process id of each Dgraph process by name: "zero", "alpha", then
// "alpha2", "alpha3"… for the further alphas.
func (c *Cluster) Processes() map[string]int {
	out := map[string]int{"zero": c.zero.pid()}
	for _, a := range c.alphas {
		out[a.name] = a.pid()
	}
	return out
}

// AlphaHTTP returns the HTTP base URL of each alpha, in the order of the addresses of Service().Addr.
func (c *Cluster) AlphaHTTP() []string {
	out := make([]string, len(c.alphas))
	for i := range c.alphas {
		out[i] = c.cfg.alphaHTTPOf(i)
	}
	return out
}

// Restart policy: a process that dies is started again after a backoff that doubles from
// restartBackoff up to maxRestartBackoff, and is reset once the process has run for stableRun. A
// process that dies maxRestarts times within restartWindow is crash-looping: something a restart cannot
// mend (a full disk, a damaged data folder, a port taken), and supervision gives up.
var (
	restartBackoff    = 500 * time.Millisecond
	maxRestartBackoff = 15 * time.Second
	stableRun         = time.Minute
	maxRestarts       = 5
	restartWindow     = 2 * time.Minute
)

// Supervise restarts every Dgraph process that dies, until Stop or ctx ends, logging each death and
// restart. The channel receives one error, naming the process and its log, when a process crash-loops;
// supervision has then stopped and the cluster should be stopped.
func (c *Cluster) Supervise(ctx context.Context) <-chan error {
	c.mu.Lock()
	if c.failed == nil {
		c.failed = make(chan error, 1)
		for _, p := range append([]*proc{c.zero}, c.alphas...) {
			go c.supervise(ctx, p)
		}
	}
	c.mu.Unlock()
	return c.failed
}

func (c *Cluster) supervise(ctx context.Context, p *proc) {
	log := c.cfg.Logger
	backoff := restartBackoff
	var deaths []time.Time
	for {
		started := time.Now()
		select {
		case <-ctx.Done():
			return
		case <-p.exited():
		}
		if c.isStopping() || ctx.Err() != nil {
			return
		}
		if c.cfg.OnDeath != nil {
			c.cfg.OnDeath(p.name)
		}
		now := time.Now()
		if now.Sub(started) >= stableRun {
			backoff = restartBackoff
		}
		deaths = append(deaths, now)
		for len(deaths) > 0 && now.Sub(deaths[0]) > restartWindow {
			deaths = deaths[1:]
		}
		logFile := filepath.Join(c.cfg.DataDir, "logs", p.name+".log")
		p.mu.Lock()
		state := p.cmd.ProcessState
		p.mu.Unlock()
		if len(deaths) >= maxRestarts {
			err := fmt.Errorf("dgraph %s died %d times within %s and is not restarted again; see %s", p.name, len(deaths), restartWindow, logFile)
			log.Error("Dgraph keeps dying", "process", p.name, "deaths", len(deaths), "log", logFile)
			select {
			case c.failed <- err:
			default:
			}
			return
		}
		log.Warn("Dgraph process died; restarting it", "process", p.name, "exit", state.String(), "backoff", backoff, "log", logFile)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		if c.isStopping() {
			return
		}
		if err := p.start(c.cfg); err != nil {
			log.Error("cannot restart Dgraph", "process", p.name, "err", err)
			select {
			case c.failed <- err:
			default:
			}
			return
		}
		log.Info("Dgraph process restarted", "process", p.name, "pid", p.pid())
		backoff = min(backoff*2, maxRestartBackoff)
	}
}

func (c *Cluster) isStopping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

// Stop ends supervision, then the alphas, then zero.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	var errs []error
	for _, p := range c.alphas {
		errs = append(errs, p.stop())
	}
	if c.zero != nil {
		errs = append(errs, c.zero.stop())
	}
	return errors.Join(errs...)
}
