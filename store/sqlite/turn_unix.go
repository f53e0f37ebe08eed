//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sqlite

import (
	"os"
	"syscall"
)

// tryExclusive reports whether no other process holds the turn file; it then holds it exclusively.
func tryExclusive(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// markWaiting holds the turn file shared (converting an exclusive hold): "this process waits to write".
func markWaiting(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_SH) }

func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
