package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

// alphaMem is a process's resident memory and, of it, the anonymous part: what the process itself
// allocated, not the pages of files it maps (Dgraph maps its write-ahead log and tables), which the
// kernel drops when memory is short.
type alphaMem struct{ RSS, Anon int64 }

func readAlphaMem(pid int) alphaMem {
	return alphaMem{RSS: procStatus(pid, "VmRSS"), Anon: procStatus(pid, "RssAnon")}
}

func (m alphaMem) String() string {
	return mb(m.RSS) + " resident (" + mb(m.Anon) + " anonymous)"
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

// machineTicks is the machine's CPU time, every CPU's, from /proc/stat: busy (user, nice, system,
// interrupts and steal) and in all (idle and waiting for I/O added), in USER_HZ ticks, and how many CPUs
// it counts; 0s when unknown.
func machineTicks() (busy, all int64, cpus int) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, 0
	}
	lines := strings.Split(string(b), "\n")
	f := strings.Fields(lines[0])
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, 0
	}
	var v [8]int64 // user nice system idle iowait irq softirq steal
	for i := range v {
		if v[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
			return 0, 0, 0
		}
	}
	for _, l := range lines[1:] {
		if len(l) > 3 && strings.HasPrefix(l, "cpu") && l[3] >= '0' && l[3] <= '9' {
			cpus++
		}
	}
	busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	return busy, busy + v[3] + v[4], cpus
}

// coresUsed is what a stretch of time cost in CPU, in cores (CPU seconds a second): this process's, the
// alpha's and the whole machine's; -1 where unknown. Taken with startCores and finished with its done.
type coresUsed struct{ Harness, Alpha, Machine float64 }

// minCoresStretch is the shortest stretch whose cores are given: the alpha's and the machine's CPU time
// come in ticks of 10 ms.
const minCoresStretch = 500 * time.Millisecond

type coresMeter struct {
	alphaPID             int
	start                time.Time
	self, alpha          time.Duration
	machineBusy, machine int64
}

func startCores(alphaPID int) coresMeter {
	m := coresMeter{alphaPID: alphaPID, start: time.Now(), self: selfCPU(), alpha: cpuTime(alphaPID)}
	m.machineBusy, m.machine, _ = machineTicks()
	return m
}

// done returns the cores used since startCores; all unknown when that was under minCoresStretch.
func (m coresMeter) done() coresUsed {
	wall := time.Since(m.start)
	u := coresUsed{Harness: -1, Alpha: -1, Machine: -1}
	if wall < minCoresStretch {
		return u
	}
	per := func(from, to time.Duration) float64 {
		if from < 0 || to < 0 {
			return -1
		}
		return float64(to-from) / float64(wall)
	}
	u.Harness, u.Alpha = per(m.self, selfCPU()), per(m.alpha, cpuTime(m.alphaPID))
	if busy, all, cpus := machineTicks(); all > m.machine && m.machine > 0 {
		u.Machine = float64(busy-m.machineBusy) / float64(all-m.machine) * float64(cpus)
	}
	return u
}

// selfCPU is the CPU time this process has used, user and system, to the microsecond; -1 when unknown.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// String is the three figures, as "1.62 / 0.21 / 1.98", or "–" when none is known.
func (u coresUsed) String() string {
	if u.Harness < 0 && u.Alpha < 0 && u.Machine < 0 {
		return "–"
	}
	f := func(v float64) string {
		if v < 0 {
			return "?"
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return f(u.Harness) + " / " + f(u.Alpha) + " / " + f(u.Machine)
}
