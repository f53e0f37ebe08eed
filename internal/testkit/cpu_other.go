//go:build !unix

package testkit

import "time"

// ProcessCPU is not measured here; benchmarks then report no CPU time.
func ProcessCPU() time.Duration { return 0 }
