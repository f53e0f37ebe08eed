package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

func TestSpool(t *testing.T) {
	now := time.Now()
	sp := newSpool(t.TempDir(), 100, func() time.Time { return now })
	ws := core.NewID()

	token, n, err := sp.save(ws, "a.csv", strings.NewReader(strings.Repeat("x", 100)))
	if err != nil || n != 100 || !validToken(token) {
		t.Fatalf("save at the limit: %q %d %v", token, n, err)
	}
	f, name, err := sp.open(ws, token)
	if err != nil || name != "a.csv" {
		t.Fatalf("open: %q %v", name, err)
	}
	f.Close()
	if _, _, err := sp.open(core.NewID(), token); err != errNoUpload {
		t.Fatalf("another workspace opened the upload: %v", err)
	}
	if _, _, err := sp.save(ws, "b.csv", strings.NewReader(strings.Repeat("x", 101))); err != errTooLarge {
		t.Fatalf("over the limit: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(sp.wsDir(ws), "*")); len(left) != 2 {
		t.Fatalf("files after a refused upload: %v", left)
	}

	// A console run of an older version kept its failed rows in a file of the spool.
	run := core.NewID()
	if err := os.WriteFile(sp.failedFile(ws, run), []byte("title,error\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sp.remove(ws, token)
	if _, _, err := sp.open(ws, token); err != errNoUpload {
		t.Fatalf("a removed upload opens: %v", err)
	}

	// A day later an unimported upload goes at the next upload; failed rows stay for their 30 days.
	stale, _, err := sp.save(ws, "c.csv", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(uploadMaxAge + time.Hour)
	if _, _, err := sp.save(ws, "d.csv", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sp.open(ws, stale); err != errNoUpload {
		t.Fatalf("a day-old upload survived: %v", err)
	}
	if _, err := os.Stat(sp.failedFile(ws, run)); err != nil {
		t.Fatalf("failed rows went with the uploads: %v", err)
	}
	now = now.Add(failedMaxAge)
	sp.sweep(sp.wsDir(ws))
	if _, err := os.Stat(sp.failedFile(ws, run)); err == nil {
		t.Fatal("failed rows outlived their keeping time")
	}
}

// FuzzUploadNames: whatever a browser or a script sends as a file name or a token, it names nothing
// outside the workspace's folder.
func FuzzUploadNames(f *testing.F) {
	for _, s := range []string{"a.csv", "../../etc/passwd", `C:\Users\ann\export.csv`, "..", ".", "", "0123456789abcdef0123456789abcdef", "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b := baseName(s); strings.ContainsAny(b, `/\`) || b == "." || b == ".." || len(b) > 200*4 {
			t.Fatalf("baseName(%q) = %q", s, b)
		}
		if validToken(s) && (len(s) != 32 || strings.Trim(s, "0123456789abcdef") != "") {
			t.Fatalf("validToken accepts %q", s)
		}
	})
}
