package dgraphlocal

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shellCluster is a Cluster whose one process is a shell running script: supervision without Dgraph.
func shellCluster(t *testing.T, script string) *Cluster {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Binary: "/bin/sh", DataDir: dir, Logger: slog.New(slog.DiscardHandler)}
	c := &Cluster{cfg: cfg, zero: &proc{name: "zero", args: []string{"-c", script}}}
	if err := c.zero.start(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	return c
}

// The restart policy is shortened for these tests; none of them runs in parallel with another that reads it.
func fastRestarts(t *testing.T) {
	saved := []time.Duration{restartBackoff, maxRestartBackoff, restartWindow}
	restartBackoff, maxRestartBackoff, restartWindow = 10*time.Millisecond, 50*time.Millisecond, time.Minute
	t.Cleanup(func() { restartBackoff, maxRestartBackoff, restartWindow = saved[0], saved[1], saved[2] })
}

func TestSuperviseRestartsAKilledProcess(t *testing.T) {
	fastRestarts(t)
	c := shellCluster(t, "sleep 600")
	failed := c.Supervise(context.Background())
	for round := range 3 {
		pid := c.Processes()["zero"]
		syscall.Kill(pid, syscall.SIGKILL)
		deadline := time.Now().Add(20 * time.Second)
		for c.Processes()["zero"] == pid {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the killed process was not restarted", round)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := syscall.Kill(c.Processes()["zero"], 0); err != nil {
			t.Fatalf("round %d: the restarted process is not running: %v", round, err)
		}
	}
	select {
	case err := <-failed:
		t.Fatalf("gave up after three kills: %v", err)
	default:
	}
}

func TestSuperviseGivesUpOnACrashLoop(t *testing.T) {
	fastRestarts(t)
	c := shellCluster(t, "exit 3")
	select {
	case err := <-c.Supervise(context.Background()):
		if !strings.Contains(err.Error(), "zero died 5 times") || !strings.Contains(err.Error(), "zero.log") {
			t.Errorf("the verdict should say which process died how often and where its log is: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a process that dies at once was restarted forever")
	}
}

func TestStopEndsSupervision(t *testing.T) {
	fastRestarts(t)
	c := shellCluster(t, "sleep 600")
	failed := c.Supervise(context.Background())
	pid := c.Processes()["zero"]
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if now := c.Processes()["zero"]; now != pid {
		t.Errorf("a stopped process was restarted (pid %d, then %d)", pid, now)
	}
	select {
	case err := <-failed:
		t.Errorf("stopping is not a failure: %v", err)
	default:
	}
}
