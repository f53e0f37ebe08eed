//go:build !unix

package csvimport

import "os"

// Without O_NOFOLLOW, the listing's Lstat check is the only guard against links.
const (
	openNoFollow = 0
	openNonBlock = 0
)

func ownRegular(fi os.FileInfo) bool { return fi.Mode().IsRegular() }
