//go:build !linux

package testkit

import "time"

// BackendCPU is not measured here; benchmarks then report no backend CPU time.
func BackendCPU(serverURL string) time.Duration { return 0 }
