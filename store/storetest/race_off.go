//go:build !race

package storetest

// raceDetector reports a build with the race detector, which slows the store's code several times over:
// the tests at scale run at a fraction of their size under it.
const raceDetector = false
