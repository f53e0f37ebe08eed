//go:build linux

package testkit

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// BackendCPU is the CPU time (user and system) used so far by the PostgreSQL backends that serve this
// process's connections to the server of serverURL, when it runs on this machine: the part of a create's
// work that ProcessCPU does not see. A backend is found by its process title, which names its client's address and
// port; backends of connections since closed are no longer counted, so callers compare two readings
// across which the pools keep their connections. It is 0 when the server runs elsewhere.
func BackendCPU(serverURL string) time.Duration {
	u, err := url.Parse(serverURL)
	if err != nil {
		return 0
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = 5432
	}
	ports := localPortsTo(port)
	if len(ports) == 0 {
		return 0
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var ticks int64
	for _, c := range procs {
		b, err := os.ReadFile(c)
		if err != nil || !strings.HasPrefix(string(b), "postgres: ") {
			continue
		}
		if p, ok := clientPort(string(b)); !ok || !ports[p] {
			continue
		}
		ticks += procTicks(filepath.Join(filepath.Dir(c), "stat"))
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ is 100 on Linux
}

// clientPort reads the client's port from a backend's title, "postgres: CLUSTER: USER DB HOST(PORT) STATE".
func clientPort(title string) (int, bool) {
	_, rest, ok := strings.Cut(title, "(")
	num, _, ok2 := strings.Cut(rest, ")")
	p, err := strconv.Atoi(num)
	return p, ok && ok2 && err == nil
}

// localPortsTo lists the local ports of this process's TCP connections to port (IPv4 and IPv6). The
// kernel's tables list every socket of the network namespace; this process's are those its descriptors
// hold, matched by inode.
func localPortsTo(port int) map[int]bool {
	mine := map[string]bool{}
	fds, _ := filepath.Glob("/proc/self/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	out := map[int]bool{}
	for _, name := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || !mine[fs[9]] || !strings.HasSuffix(fs[2], fmt.Sprintf(":%04X", port)) {
				continue
			}
			_, lp, ok := strings.Cut(fs[1], ":")
			if n, err := strconv.ParseInt(lp, 16, 32); ok && err == nil {
				out[int(n)] = true
			}
		}
		f.Close()
	}
	return out
}

// procTicks is a process's user and system time in clock ticks, from its /proc stat file.
func procTicks(stat string) int64 {
	b, err := os.ReadFile(stat)
	if err != nil {
		return 0
	}
	// The fields after the command name (which may hold spaces) start after its closing parenthesis;
	// utime and stime are the 14th and 15th fields of the line.
	i := strings.LastIndex(string(b), ") ")
	if i < 0 {
		return 0
	}
	fs := strings.Fields(string(b)[i+2:])
	if len(fs) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(fs[11], 10, 64)
	s, _ := strconv.ParseInt(fs[12], 10, 64)
	return u + s
}
