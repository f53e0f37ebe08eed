//go:build !unix

package email

import "time"

// processCPU is not measured here; BenchmarkIngest then reports no CPU time.
func processCPU() time.Duration { return 0 }

// machineCPU is not measured here either.
func machineCPU() time.Duration { return 0 }
