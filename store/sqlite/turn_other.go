//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package sqlite

import "os"

// Without flock, writers do not take turns.
func tryExclusive(*os.File) bool { return true }
func markWaiting(*os.File)       {}
func unlock(*os.File)            {}
