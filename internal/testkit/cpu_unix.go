//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user and system) this process has used so far: beside a wall-clock rate
// on a busy machine, the work a benchmark's arm did.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
