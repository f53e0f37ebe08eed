package main

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestWatchStallStopsAnIdleProcess: a process that uses no CPU is sent SIGQUIT once the limit passes.
func TestWatchStallStopsAnIdleProcess(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	stop := make(chan struct{})
	got := make(chan bool, 1)
	go func() { got <- watchStall(cmd.Process.Pid, 200*time.Millisecond, stop) }()
	start := time.Now()
	err := cmd.Wait()
	close(stop)
	if !<-got {
		t.Fatal("watchStall did not report a stall")
	}
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("sleep ended with %v after %s; want killed by SIGQUIT within seconds", err, time.Since(start))
	}
}

// TestWatchStallLeavesABusyProcess: stopping the watch before the limit reports no stall.
func TestWatchStallLeavesABusyProcess(t *testing.T) {
	stop := make(chan struct{})
	got := make(chan bool, 1)
	go func() { got <- watchStall(os.Getpid(), time.Hour, stop) }()
	time.Sleep(50 * time.Millisecond)
	close(stop)
	if <-got {
		t.Error("reported a stall of a process that was watched for 50 ms against an hour's limit")
	}
}

func TestCPUTicks(t *testing.T) {
	deadline := time.Now().Add(2 * time.Second)
	for x := 0; cpuTicks(os.Getpid()) <= 0 && time.Now().Before(deadline); x++ {
		_ = x * x // burn CPU until the kernel has counted a tick
	}
	if cpuTicks(os.Getpid()) <= 0 {
		t.Errorf("cpuTicks of this busy process = %d", cpuTicks(os.Getpid()))
	}
	if cpuTicks(-5) != -1 {
		t.Error("cpuTicks of no process is not -1")
	}
}

func TestStallSite(t *testing.T) {
	dump := `goroutine 18 gp=0x2ef9947e03c0 m=nil [select, 9 minutes]:
database/sql.(*DB).conn(0x2ef99489e008, {0xa0bc08, 0xe7d1e0}, 0x1)
	/usr/local/go/src/database/sql/sql.go:1360 +0x5d8
github.com/feedbridge/feedbridge/store/sqlite.(*stmtCache).get(0x2ef9947720a8, {0xa0bc08, 0xe7d1e0}, {0x9d0a22, 0x38})
	/work/main/store/sqlite/stmts.go:30 +0x8c
github.com/feedbridge/feedbridge/store/sqlite.fill_test.go(0x1)
`
	if got, want := stallSite(dump), "first project frame: github.com/feedbridge/feedbridge/store/sqlite.(*stmtCache).get"; got != want {
		t.Errorf("stallSite = %q, want %q", got, want)
	}
	if got := stallSite("no frames"); got != "see the goroutine dump in the log" {
		t.Errorf("stallSite without frames = %q", got)
	}
}
