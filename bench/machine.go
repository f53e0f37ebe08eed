package main

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes where and when the figures were measured; the ratios only mean something beside it.
type Machine struct {
	CPUs      int
	CPUModel  string
	MemTotal  string
	Kernel    string
	GoVersion string
	Date      time.Time
	Commit    string // HEAD, with "+ uncommitted changes" when the tree differs
	LoadStart string // /proc/loadavg's 1, 5, 15 minute averages
	LoadEnd   string
	Postgres  string // server version, or why none
	Dovecot   string
}

func describeMachine(ctx context.Context, root, exported string) Machine {
	m := Machine{CPUs: runtime.NumCPU(), Date: time.Now().UTC(), LoadStart: loadAverage()}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	m.MemTotal = procField("/proc/meminfo", "MemTotal")
	if kb, err := strconv.Atoi(strings.TrimSuffix(m.MemTotal, " kB")); err == nil {
		m.MemTotal = strconv.FormatFloat(float64(kb)/(1<<20), 'f', 1, 64) + " GiB"
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.GoVersion = strings.TrimPrefix(commandOutput(ctx, root, "go", "version"), "go version ")
	switch m.Commit = commandOutput(ctx, root, "git", "rev-parse", "--short=12", "HEAD"); {
	case m.Commit == "" && exported != "":
		m.Commit = exported + " (a `git archive` export of it, so exactly the committed code)"
	case m.Commit == "":
		m.Commit = "unknown (not a git checkout; give -commit)"
	case commandOutput(ctx, root, "git", "status", "--porcelain", "--untracked-files=no") != "":
		m.Commit += " + uncommitted changes in the tree"
	}
	return m
}

// loadAverage returns the 1, 5 and 15 minute load averages, e.g. "17.80 17.84 15.07".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func commandOutput(ctx context.Context, dir, name string, args ...string) string {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// redactURL hides a password in a URL, so that commands can be printed; other strings pass unchanged.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, has := u.User.Password(); !has {
		return s
	}
	return u.Redacted()
}
