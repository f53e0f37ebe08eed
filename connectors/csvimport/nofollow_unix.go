//go:build unix

package csvimport

import (
	"os"
	"syscall"
)

// openNoFollow makes an open fail on a symbolic link; openNonBlock keeps an open of a FIFO from waiting
// for a writer, so that the check after it can refuse the FIFO.
const (
	openNoFollow = syscall.O_NOFOLLOW
	openNonBlock = syscall.O_NONBLOCK
)

// ownRegular reports whether fi is a regular file with no other name (a hard link elsewhere would let a
// drop folder read, and then move away, a file that belongs to someone else).
func ownRegular(fi os.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || uint64(st.Nlink) <= 1
}
