package daemon

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// DefaultPIDFile is where `serve` writes its process id unless --pid-file says otherwise, and where
// `feedbridge reload` looks for it. A SQLite store gets a private folder beside its file (PATH.run), so the
// file names the store it belongs to and sits where only the store's owner can write; a PostgreSQL store
// has no folder of its own, so the file goes into this user's runtime (or cache) folder, named after the
// store's URL. The shared temporary directory is never used: anyone can plant files there.
func DefaultPIDFile(storeURL string) (string, error) {
	scheme, rest, _ := strings.Cut(storeURL, "://")
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3":
		if rest == "" {
			return "", errors.New("pid file: the sqlite store url has no path")
		}
		abs, err := filepath.Abs(rest)
		if err != nil {
			return "", fmt.Errorf("pid file: %w", err)
		}
		return filepath.Join(abs+".run", "serve.pid"), nil
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("pid file: no runtime or cache folder for this user (give --pid-file): %w", err)
		}
		dir = cache
	}
	sum := sha256.Sum256([]byte(storeURL))
	return filepath.Join(dir, "feedbridge", "serve-"+hex.EncodeToString(sum[:6])+".pid"), nil
}

// checkDir refuses a folder that someone other than this user (or root) could write into: there a planted
// file or link could stand in for the pid file between our checks and our use of it.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("pid file folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("pid file folder %s is not a folder", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() && st.Uid != 0 {
		return fmt.Errorf("pid file folder %s belongs to another user (uid %d)", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("pid file folder %s is writable by other users (mode %o); use a private folder", dir, fi.Mode().Perm())
	}
	return nil
}

// pidFile is a written pid file: the open file holds an exclusive lock for as long as the daemon runs,
// which is how `reload` tells a live daemon's file from a stale one whose pid may since name anything.
type pidFile struct {
	path string
	f    *os.File
}

// writePIDFile creates the file's folder (0700) when it is missing, writes this process's id to a new
// file of a random name there (O_EXCL and O_NOFOLLOW: a planted name or link is never followed), locks
// it, and renames it over path (which replaces a link at path rather than writing through it).
func writePIDFile(path string) (*pidFile, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pid file: %w", err)
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+filepath.Base(path)+"."+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pid file: %w", err)
	}
	fail := func(err error) (*pidFile, error) {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("pid file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fail(err)
	}
	if _, err := f.WriteString(strconv.Itoa(os.Getpid()) + "\n"); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	return &pidFile{path: path, f: f}, nil
}

// remove deletes the file if it is still this process's (another daemon started with the same file since
// has put its own in place), then lets the lock go.
func (p *pidFile) remove() {
	if mine, err := p.f.Stat(); err == nil {
		if there, err := os.Lstat(p.path); err == nil && os.SameFile(mine, there) {
			os.Remove(p.path)
		}
	}
	p.f.Close()
}

// ReadPIDFile returns the process id in a pid file written by `serve`, but only when that process is a
// running daemon: the file must sit in a folder no other user can write, be a regular file (never a link),
// and be locked by a live process, which must be the process it names. A stale file (the daemon died and
// its pid may now belong to anything) is refused rather than signalled.
func ReadPIDFile(path string) (int, error) {
	if err := checkDir(filepath.Dir(path)); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("no running daemon found (pid file %s): %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("pid file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("pid file %s is not a regular file", path)
	}
	var b [32]byte
	n, _ := f.Read(b[:])
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("pid file %s does not hold a process id", path)
	}
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); {
	case err == nil:
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return 0, fmt.Errorf("no running daemon found: pid file %s is stale (no feedbridge serve holds it; process %d was not signalled)", path, pid)
	case !errors.Is(err, syscall.EWOULDBLOCK):
		return 0, fmt.Errorf("pid file %s: lock: %w", path, err)
	}
	ino := fi.Sys().(*syscall.Stat_t).Ino
	if holders, ok := lockHolders(ino); ok && !holders[pid] {
		return 0, fmt.Errorf("pid file %s names process %d, which is not the daemon holding it; not signalled", path, pid)
	}
	return pid, nil
}

// lockHolders reads, from /proc/locks, the processes holding a lock on the file with inode ino; ok is
// false where that list cannot be read (then the lock alone vouches for the file).
func lockHolders(ino uint64) (map[int]bool, bool) {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	// A line: "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; blocked waiters carry a "->" field.
	want := ":" + strconv.FormatUint(ino, 10)
	holders := map[int]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] == "->" || !strings.HasSuffix(fields[5], want) {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil {
			holders[pid] = true
		}
	}
	return holders, sc.Err() == nil
}
