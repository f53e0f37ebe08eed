package csvimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// settleTime is how long a file's size and modification time must stay the same before it is imported:
// a file still being copied in is left for the next run.
const settleTime = 2 * time.Second

// readyFiles lists the files of the glob that are complete, oldest first. Errors files and directories
// are skipped; so is a file whose size or time changed while we waited.
func readyFiles(ctx context.Context, pattern string, settle time.Duration, wait func(context.Context, time.Duration) error) (ready, busy []string, err error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, nil, err
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
		fi, err := os.Stat(m)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		first = append(first, seen{m, fi})
	}
	if len(first) == 0 {
		return nil, nil, nil
	}
	if err := wait(ctx, settle); err != nil {
		return nil, nil, err
	}
	sort.Slice(first, func(i, j int) bool {
		if !first[i].info.ModTime().Equal(first[j].info.ModTime()) {
			return first[i].info.ModTime().Before(first[j].info.ModTime())
		}
		return first[i].path < first[j].path
	})
	for _, s := range first {
		fi, err := os.Stat(s.path)
		switch {
		case err != nil:
			continue // gone meanwhile
		case fi.Size() != s.info.Size() || !fi.ModTime().Equal(s.info.ModTime()):
			busy = append(busy, s.path)
		default:
			ready = append(ready, s.path)
		}
	}
	return ready, busy, nil
}

// archivePath picks where an imported file goes: its own name in dir, or, when that is taken (a daily
// export that always has the same name), the name with the import time added.
func archivePath(dir, file string, now time.Time) string {
	base := filepath.Base(file)
	p := filepath.Join(dir, base)
	if _, err := os.Lstat(p); os.IsNotExist(err) {
		return p
	}
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s-%s%s", stem, now.UTC().Format("20060102T150405Z"), ext)
		if i > 0 {
			name = fmt.Sprintf("%s-%s-%d%s", stem, now.UTC().Format("20060102T150405Z"), i, ext)
		}
		p = filepath.Join(dir, name)
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			return p
		}
	}
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
