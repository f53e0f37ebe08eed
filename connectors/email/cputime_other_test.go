//go:build !unix

package email

import "time"

// machineCPU is not measured here; BenchmarkIngest then reports no machine CPU time.
func machineCPU() time.Duration { return 0 }
