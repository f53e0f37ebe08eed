//go:build race

package sqlite

// raceBuild reports a build with the race detector, whose instrumentation allocates on its own: counts of
// allocations are not the code's there.
const raceBuild = true
