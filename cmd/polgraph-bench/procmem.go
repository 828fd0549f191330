package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Memory of processes, from Linux's /proc. Sizes are in bytes; 0 means unknown.

// procStatus reads one "kB" field (VmHWM, VmRSS) of /proc/PID/status; pid 0 is this process.
func procStatus(pid int, field string) int64 {
	path := "/proc/self/status"
	if pid != 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// peakRSS is a process's peak resident memory since it started or since resetPeak.
func peakRSS(pid int) int64 { return procStatus(pid, "VmHWM") }

// resetPeak starts a process's peak resident memory afresh (Linux 4.0+); it reports whether it could.
func resetPeak(pid int) bool {
	path := "/proc/self/clear_refs"
	if pid != 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/clear_refs"
	}
	return os.WriteFile(path, []byte("5"), 0) == nil
}

// rssWatch samples a process's resident memory until stopped and keeps the highest value: the peak over
// a stretch of time even where the kernel's peak cannot be reset.
type rssWatch struct {
	pid  int
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	max  int64
}

func watchRSS(pid int, every time.Duration) *rssWatch {
	w := &rssWatch{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *rssWatch) sample() {
	v := procStatus(w.pid, "VmRSS")
	w.mu.Lock()
	w.max = max(w.max, v)
	w.mu.Unlock()
}

// Stop ends the watch and returns the highest resident memory seen.
func (w *rssWatch) Stop() int64 {
	close(w.stop)
	<-w.done
	w.sample()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.max
}

// cpuTime is the CPU time a process has used (user and system), from /proc/PID/stat; -1 when unknown.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name, in parentheses, may hold spaces: count fields after its closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}
