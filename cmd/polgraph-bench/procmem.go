package main

import (
	"math"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// Memory and CPU of processes, from Linux's /proc. Sizes are in bytes; 0 means unknown.

// procStatus is /proc/PID/status, its sizes in bytes; pid 0 is this process; all 0 when unknown.
func procStatus(pid int) procfs.ProcStatus {
	p, err := procfs.Self()
	if pid != 0 {
		p, err = procfs.NewProc(pid)
	}
	if err != nil {
		return procfs.ProcStatus{}
	}
	st, err := p.NewStatus()
	if err != nil {
		return procfs.ProcStatus{}
	}
	return st
}

// residentMemory is a process's resident memory (VmRSS); pid 0 is this process.
func residentMemory(pid int) int64 { return int64(procStatus(pid).VmRSS) }

// alphaMem is a process's resident memory and, of it, the anonymous part: what the process itself
// allocated, not the pages of files it maps (Dgraph maps its write-ahead log and tables), which the
// kernel drops when memory is short.
type alphaMem struct{ RSS, Anon int64 }

func readAlphaMem(pid int) alphaMem {
	st := procStatus(pid)
	return alphaMem{RSS: int64(st.VmRSS), Anon: int64(st.RssAnon)}
}

func (m alphaMem) String() string {
	return mb(m.RSS) + " resident (" + mb(m.Anon) + " anonymous)"
}

// peakRSS is a process's peak resident memory since it started or since resetPeak.
func peakRSS(pid int) int64 { return int64(procStatus(pid).VmHWM) }

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
	v := residentMemory(w.pid)
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
	p, err := procfs.NewProc(pid)
	if err != nil {
		return -1
	}
	st, err := p.Stat()
	if err != nil {
		return -1
	}
	// Whole ticks of 10 ms, in seconds: rounding to the nanosecond undoes the float's error.
	return time.Duration(math.Round(st.CPUTime() * float64(time.Second)))
}

// machineCPU is the machine's CPU time, every CPU's, from /proc/stat: busy (user, nice, system,
// interrupts and steal) and in all (idle and waiting for I/O added), in seconds, and how many CPUs it
// counts; 0s when unknown.
func machineCPU() (busy, all float64, cpus int) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, 0, 0
	}
	st, err := fs.Stat()
	if err != nil {
		return 0, 0, 0
	}
	t := st.CPUTotal
	busy = t.User + t.Nice + t.System + t.IRQ + t.SoftIRQ + t.Steal
	return busy, busy + t.Idle + t.Iowait, len(st.CPU)
}

// coresUsed is what a stretch of time cost in CPU, in cores (CPU seconds a second): this process's, the
// alpha's and the whole machine's; -1 where unknown. Taken with startCores and finished with its done.
type coresUsed struct{ Harness, Alpha, Machine float64 }

// minCoresStretch is the shortest stretch whose cores are given: the alpha's and the machine's CPU time
// come in ticks of 10 ms.
const minCoresStretch = 500 * time.Millisecond

// coresMeter measures the CPU of one stretch of time, or of several added together (a row measured in
// slices, between which it is paused).
type coresMeter struct {
	alphaPID int
	running  bool
	from     cpuSample // where the running stretch started
	sum      coresSum  // the stretches ended so far
}

// cpuSample is the CPU time used so far: this process's, the alpha's and the machine's (seconds: busy,
// in all, and how many CPUs), with when it was read; -1 or 0s where unknown.
type cpuSample struct {
	at          time.Time
	self, alpha time.Duration
	busy, all   float64
	cpus        int
}

func sampleCPU(alphaPID int) cpuSample {
	s := cpuSample{at: time.Now(), self: selfCPU(), alpha: cpuTime(alphaPID)}
	s.busy, s.all, s.cpus = machineCPU()
	return s
}

// coresSum adds up stretches of time and the CPU they took; a figure unknown in one stretch is unknown
// in the sum.
type coresSum struct {
	wall, self, alpha          time.Duration
	busy, all                  float64
	cpus                       int
	noSelf, noAlpha, noMachine bool
}

// add adds the stretch from one sample to a later one.
func (s *coresSum) add(from, to cpuSample) {
	s.wall += to.at.Sub(from.at)
	s.noSelf = s.noSelf || from.self < 0 || to.self < 0
	s.noAlpha = s.noAlpha || from.alpha < 0 || to.alpha < 0
	s.self += to.self - from.self
	s.alpha += to.alpha - from.alpha
	if from.all > 0 && to.all > from.all {
		s.busy, s.all, s.cpus = s.busy+to.busy-from.busy, s.all+to.all-from.all, to.cpus
	} else {
		s.noMachine = true
	}
}

// cores is the sum in cores; all unknown when its stretches came to under minCoresStretch.
func (s coresSum) cores() coresUsed {
	u := coresUsed{Harness: -1, Alpha: -1, Machine: -1}
	if s.wall < minCoresStretch {
		return u
	}
	if !s.noSelf {
		u.Harness = float64(s.self) / float64(s.wall)
	}
	if !s.noAlpha {
		u.Alpha = float64(s.alpha) / float64(s.wall)
	}
	if !s.noMachine {
		u.Machine = s.busy / s.all * float64(s.cpus)
	}
	return u
}

// resume starts a stretch.
func (m *coresMeter) resume() { m.running, m.from = true, sampleCPU(m.alphaPID) }

// pause ends the running stretch, adding what it took.
func (m *coresMeter) pause() {
	if m.running {
		m.running = false
		m.sum.add(m.from, sampleCPU(m.alphaPID))
	}
}

// done ends the running stretch and returns the cores used over every stretch; all unknown when they
// came to under minCoresStretch.
func (m *coresMeter) done() coresUsed {
	m.pause()
	return m.sum.cores()
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
