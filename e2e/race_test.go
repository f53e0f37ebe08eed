//go:build race

package e2e

// raceBuild: this test binary runs under the race detector, so the daemon it drives is built with it too.
const raceBuild = true
