//go:build !race

package e2e

// raceBuild: this test binary runs without the race detector, and so does the daemon it builds.
const raceBuild = false
