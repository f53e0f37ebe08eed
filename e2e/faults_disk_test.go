package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tinyDisk mounts a tmpfs of size bytes for the test, or skips when mounting is not possible here.
func tinyDisk(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v: %s); docs/reliability.md describes the disk-full test", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes zeros into path until the file system is full.
func fill(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	var n int64
	for {
		w, err := f.Write(buf)
		n += int64(w)
		if err != nil {
			return n
		}
	}
}

// The SQLite file's disk fills up under load: writes answer 503 with the error shape and an error_id in
// the log, /metrics counts them, /readyz answers 503, reads keep working; once space is freed /readyz
// recovers without a client write and the same daemon writes again,
// and the database is intact with every acknowledged write in it once.
func TestFaultSQLiteDiskFull(t *testing.T) {
	t.Parallel()
	disk := tinyDisk(t, "6m")
	storeURL := "sqlite://" + filepath.Join(disk, "fb.db")
	e := newEnv(t, storeURL, "insights: {provider: \"off\"}\n")
	_, key := e.workspace("Disk full")
	d := e.start()
	acked := map[string]string{}
	write := func(i int) (int, errorReply) {
		title := fmt.Sprintf("disk %d", i)
		req, _ := http.NewRequest("POST", d.url("/api/records/feedback"), strings.NewReader(
			fmt.Sprintf(`{"title":%q,"description":%q}`, title, strings.Repeat("The export is slow. ", 40))))
		req.Header.Set("x-api-key", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("no answer with a full disk: %v", err)
		}
		defer resp.Body.Close()
		var er errorReply
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == 201 {
			var rec struct{ ID string }
			_ = json.Unmarshal(data, &rec)
			acked[title] = rec.ID
		} else if err := json.Unmarshal(data, &er); err != nil {
			t.Fatalf("%d body not the error shape: %s", resp.StatusCode, data)
		}
		return resp.StatusCode, er
	}
	i := 0
	for ; i < 50; i++ {
		if code, _ := write(i); code != 201 {
			t.Fatalf("write before the disk filled: %d", code)
		}
	}
	filler := filepath.Join(disk, "filler")
	filled := fill(t, filler)
	var full errorReply
	fullAnswers := 0
	for tries := 0; tries < 5000 && fullAnswers < 5; tries++ {
		code, er := write(i)
		i++
		if code != 201 {
			if code != 503 || er.ErrorID == "" {
				t.Fatalf("write with a full disk: %d %+v, want 503 with an error_id", code, er)
			}
			full = er
			fullAnswers++
		}
	}
	if fullAnswers == 0 {
		t.Fatal("the disk never filled up for the daemon")
	}
	eventually(t, 10*time.Second, "the disk-full answer's error_id in the log", func() bool {
		return d.logged("", "error_id", full.ErrorID) > 0
	})
	if metric(t, d, "feedbridge_http_requests_total", `status="503"`) == 0 {
		t.Error("/metrics counted no 503")
	}
	readyz := status(t, "GET", d.url("/readyz"), "", "")
	if readyz != 503 {
		t.Errorf("/readyz with a full disk: %d, want 503", readyz)
	}
	if code := status(t, "GET", d.url("/api/records?record_type=Feedback&limit=5"), key, ""); code != 200 {
		t.Errorf("reads with a full disk: %d", code)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	// Readiness comes back by itself, before any client writes again.
	eventually(t, 10*time.Second, "/readyz 200 once space is freed", func() bool {
		return status(t, "GET", d.url("/readyz"), "", "") == 200
	})
	eventually(t, 20*time.Second, "writes resume once space is freed", func() bool { code, _ := write(i); i++; return code == 201 })
	for j := 0; j < 20; j++ {
		if code, _ := write(i); code != 201 {
			t.Fatalf("write after space was freed: %d", code)
		}
		i++
	}
	byTitle := listTitles(t, d, key, "Feedback")
	for title, id := range acked {
		if ids := byTitle[title]; len(ids) != 1 || ids[0] != id {
			t.Errorf("%s acknowledged as %s, stored as %v", title, id, ids)
		}
	}
	if len(byTitle) != len(acked) {
		t.Errorf("%d records stored, %d acknowledged", len(byTitle), len(acked))
	}
	db := e.inspect(storeURL)
	if got := db.strings(t, "PRAGMA integrity_check"); len(got) != 1 || got[0] != "ok" {
		t.Errorf("integrity_check after the disk was full: %v", got)
	}
	figures(t, "faults=1 filler_bytes=%d answered_503=%d readyz_while_full=%d resumed_after=%v writes_acked=%d lost=0 duplicates=0 integrity=ok",
		filled, fullAnswers, readyz, time.Since(resumed).Round(10*time.Millisecond), len(acked))
}
