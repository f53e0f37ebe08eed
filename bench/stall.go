package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stallLimit is how long a benchmark process may use no CPU at all before it is taken for deadlocked. The
// tree is shared with engineers mid-edit, and a hung store would otherwise hold a part until its timeout.
// It is long because a benchmark may wait on PostgreSQL building an index over a million rows.
const stallLimit = 10 * time.Minute

// watchStall samples the process's CPU time (every 10 s, or a quarter of limit if shorter) and sends it SIGQUIT (which makes a Go program
// print every goroutine's stack and exit) once it has not changed for limit. It reports whether it did.
func watchStall(pid int, limit time.Duration, stop <-chan struct{}) bool {
	tick := time.NewTicker(min(10*time.Second, limit/4))
	defer tick.Stop()
	last, since := cpuTicks(pid), time.Now()
	for {
		select {
		case <-stop:
			return false
		case <-tick.C:
		}
		if now := cpuTicks(pid); now != last || now < 0 {
			last, since = now, time.Now()
			continue
		}
		if time.Since(since) >= limit {
			_ = syscall.Kill(pid, syscall.SIGQUIT)
			<-stop
			return true
		}
	}
}

// cpuTicks is utime+stime of a process from /proc/PID/stat, or -1 when unreadable.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name may hold spaces; the fields after its closing parenthesis are fixed.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return u + s
}

// stallSite names the first frame of the project's code in a goroutine dump, where a deadlock usually is.
func stallSite(dump string) string {
	for _, l := range strings.Split(dump, "\n") {
		if strings.HasPrefix(l, "github.com/feedbridge/feedbridge/") && !strings.Contains(l, "_test.") {
			if i := strings.LastIndexByte(l, '('); i > 0 {
				l = l[:i]
			}
			return "first project frame: " + l
		}
	}
	return "see the goroutine dump in the log"
}
