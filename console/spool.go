package console

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// DefaultUploadLimit bounds one uploaded CSV file when the configuration names no other limit.
const DefaultUploadLimit int64 = 2 << 30

// Spooled uploads live until they are imported or this old; the files of failed rows that console runs
// kept here, before runs kept them in the store, live as long as failed rows do in the store.
const (
	uploadMaxAge = 24 * time.Hour
	failedMaxAge = 30 * 24 * time.Hour
)

// errTooLarge is an upload over the limit; errNoUpload a token that names no spooled file.
var (
	errTooLarge = errors.New("upload over the size limit")
	errNoUpload = errors.New("no such upload")
)

// spool keeps uploaded files on disk, one folder per workspace, so that an upload of any size costs no
// memory and its preview reads only its first rows. A file is named by a random token that only its
// workspace's pages can open.
type spool struct {
	dir   string
	limit int64
	now   func() time.Time
}

func newSpool(dir string, limit int64, now func() time.Time) *spool {
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "feedbridge-uploads")
	}
	if limit <= 0 {
		limit = DefaultUploadLimit
	}
	return &spool{dir: dir, limit: limit, now: now}
}

func (s *spool) wsDir(ws core.ID) string { return filepath.Join(s.dir, string(ws)) }

// validToken keeps a token from naming anything but a spooled file: 32 lowercase hex characters.
func validToken(t string) bool {
	if len(t) != 32 {
		return false
	}
	_, err := hex.DecodeString(t)
	return err == nil && strings.ToLower(t) == t
}

// save copies src to a new spooled file, refusing more than the limit, and keeps the file's name beside it.
func (s *spool) save(ws core.ID, name string, src io.Reader) (string, int64, error) {
	dir := s.wsDir(ws)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", 0, fmt.Errorf("upload folder: %w", err)
	}
	s.sweep(dir)
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", 0, err
	}
	token := hex.EncodeToString(b)
	f, err := os.OpenFile(filepath.Join(dir, token+".csv"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", 0, fmt.Errorf("upload file: %w", err)
	}
	n, err := io.Copy(f, io.LimitReader(src, s.limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > s.limit {
		err = errTooLarge
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, token+".name"), []byte(name), 0o600)
	}
	if err != nil {
		s.remove(ws, token)
		return "", n, err
	}
	return token, n, nil
}

// open returns a spooled upload and its original file name.
func (s *spool) open(ws core.ID, token string) (*os.File, string, error) {
	if !validToken(token) {
		return nil, "", errNoUpload
	}
	name, err := os.ReadFile(filepath.Join(s.wsDir(ws), token+".name"))
	if err != nil {
		return nil, "", errNoUpload
	}
	f, err := os.Open(filepath.Join(s.wsDir(ws), token+".csv"))
	if err != nil {
		return nil, "", errNoUpload
	}
	return f, string(name), nil
}

func (s *spool) remove(ws core.ID, token string) {
	if !validToken(token) {
		return
	}
	for _, ext := range []string{".csv", ".name", ".errors.csv"} {
		_ = os.Remove(filepath.Join(s.wsDir(ws), token+ext))
	}
}

// failedFile is where console runs kept their failed rows before runs kept them in the store; such a file
// is still served, until the sweep deletes it.
func (s *spool) failedFile(ws, run core.ID) string {
	return filepath.Join(s.wsDir(ws), "run-"+string(run)+".errors.csv")
}

// sweep removes uploads nobody imported within a day and failed rows past their keeping time.
func (s *spool) sweep(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	now := s.now()
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		keep := uploadMaxAge
		if strings.HasPrefix(e.Name(), "run-") {
			keep = failedMaxAge
		}
		if now.Sub(info.ModTime()) > keep {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
