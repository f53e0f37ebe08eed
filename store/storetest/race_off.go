//go:build !race

package storetest

// raceDetector reports a build with the race detector, which slows the store's code several times over:
// timing limits are held only without it.
const raceDetector = false
