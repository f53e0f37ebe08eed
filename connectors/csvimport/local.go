package csvimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// settleTime is how long a file's size and modification time must stay the same before it is imported:
// a file still being copied in is left for the next run.
const settleTime = 2 * time.Second

// readyFiles lists the files of the glob that are complete, oldest first. Errors files, directories and
// anything else that is not a regular file of its own are skipped: a symbolic link (it could point at a
// secret or at another entry's archive), a device, a FIFO, a file with a second name elsewhere. So is a
// file whose size or time changed while we waited.
func readyFiles(ctx context.Context, pattern string, settle time.Duration, wait func(context.Context, time.Duration) error) (ready, busy, refused []string, err error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, nil, nil, err
	}
	type seen struct {
		path string
		info os.FileInfo
	}
	var first []seen
	for _, m := range matches {
		if strings.HasSuffix(strings.ToLower(m), ".errors.csv") {
			continue
		}
		fi, err := os.Lstat(m)
		switch {
		case err != nil, fi.IsDir():
			continue
		case !ownRegular(fi):
			refused = append(refused, m)
			continue
		}
		first = append(first, seen{m, fi})
	}
	if len(first) == 0 {
		return nil, nil, refused, nil
	}
	if err := wait(ctx, settle); err != nil {
		return nil, nil, nil, err
	}
	sort.Slice(first, func(i, j int) bool {
		if !first[i].info.ModTime().Equal(first[j].info.ModTime()) {
			return first[i].info.ModTime().Before(first[j].info.ModTime())
		}
		return first[i].path < first[j].path
	})
	for _, s := range first {
		fi, err := os.Lstat(s.path)
		switch {
		case err != nil:
			continue // gone meanwhile
		case !ownRegular(fi):
			refused = append(refused, s.path)
		case fi.Size() != s.info.Size() || !fi.ModTime().Equal(s.info.ModTime()):
			busy = append(busy, s.path)
		default:
			ready = append(ready, s.path)
		}
	}
	return ready, busy, refused, nil
}

// errNotRegular refuses a drop-folder entry that is not a regular file of its own.
var errNotRegular = errors.New("not a regular file (links, devices and files with several names are refused)")

// openDropFile opens a file of a drop folder for reading without following a symbolic link in its last
// component, and checks on the opened file that it is still a regular file with one name: the check
// holds even if the entry was replaced after it was listed.
func openDropFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !ownRegular(fi) {
		err = fmt.Errorf("%s: %w", path, errNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// importDropFile imports one file of a drop folder: opened by openDropFile, its failure to open
// recorded as a failed run.
func importDropFile(ctx context.Context, svc connectors.Service, ws core.ID, path string, opts Options) (core.ImportRun, error) {
	f, err := openDropFile(path)
	if err != nil {
		return failedRun(ctx, svc, ws, path, opts, err)
	}
	defer f.Close()
	return Import(ctx, svc, ws, f, path, opts)
}

// archiveAttempts bounds the search for a free archive name: past it the folder is full of this file's
// copies, or something else is wrong, and the run says so instead of searching on.
const archiveAttempts = 100

// maxNameBytes is the longest file name most file systems take; a timestamped archive name is shortened
// so that it, and its errors file's name, fit.
const maxNameBytes = 255

// archivePath picks where an imported file goes: its own name in dir, or, when that is taken (a daily
// export that always has the same name), the name with the import time added, its stem shortened when the
// whole would be too long. Any error but "does not exist" ends the search: the folder cannot be entered or
// the name cannot be made.
func archivePath(dir, file string, now time.Time) (string, error) {
	base := filepath.Base(file)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	// The longer of the two names that go to the archive: the file's and its errors file's.
	tail := max(len(ext), len(ErrorsFileName("x.csv"))-1)
	if len(stem)+tail <= maxNameBytes {
		p := filepath.Join(dir, base)
		free, err := nameFree(p)
		if err != nil || free {
			return p, err
		}
	}
	stamp := now.UTC().Format("20060102T150405Z")
	for i := range archiveAttempts {
		suffix := "-" + stamp
		if i > 0 {
			suffix = fmt.Sprintf("-%s-%d", stamp, i)
		}
		room := maxNameBytes - len(suffix) - tail
		if room < 1 {
			return "", fmt.Errorf("archive name for %s: extension too long", base)
		}
		p := filepath.Join(dir, clipBytes(stem, room)+suffix+ext)
		free, err := nameFree(p)
		if err != nil {
			return "", err
		}
		if free {
			return p, nil
		}
	}
	return "", fmt.Errorf("archive name for %s: %d names taken in %s", base, archiveAttempts, dir)
}

// nameFree reports whether nothing exists at p; any other answer than "does not exist" is an error.
func nameFree(p string) (bool, error) {
	_, err := os.Lstat(p)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, fs.ErrNotExist):
		return true, nil
	default:
		return false, err
	}
}

// clipBytes shortens s to at most n bytes without cutting a UTF-8 sequence.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// moveFile renames src to dst, copying when they are on different file systems.
func moveFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	err := os.Rename(src, dst)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Remove(src)
}
