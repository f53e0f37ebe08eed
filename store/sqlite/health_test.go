package sqlite

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestPingReportsAFullDisk fills the small file system the store lives on: reads still work, so Ping must
// learn of the failing writes from the writer; once space is freed it must recover on its own, with no
// client write to show the way.
func TestPingReportsAFullDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("no small file system to fill here (mount: %v: %s); e2e TestFaultSQLiteDiskFull covers the daemon", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	ctx := t.Context()
	st := openT(t, filepath.Join(dir, "full.db"))
	ws := core.Workspace{ID: core.NewID(), Name: "full", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("ping before the disk filled: %v", err)
	}
	// Records created before the disk fills, left for a fold that cannot be written once it is full.
	for range 3 {
		if _, _, err := st.CreateRecord(ctx, ws.ID, contactRecord("d@acme.com", "")); err != nil {
			t.Fatal(err)
		}
	}
	// Take every free byte, then write until the store runs out of room too.
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for buf := make([]byte, 32<<10); ; {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	big := strings.Repeat("full disk ", 2000)
	var (
		werr    error
		created = 3
	)
	for i := 0; i < 500 && werr == nil; i++ {
		nr := contactRecord("d@acme.com", "")
		nr.Description, nr.SearchText = big, big
		if _, _, werr = st.CreateRecord(ctx, ws.ID, nr); werr == nil {
			created++
		}
	}
	if !errors.Is(werr, core.ErrUnavailable) {
		t.Fatalf("writes on a full disk: %v, want an unavailable error", werr)
	}
	// The companies' counts, which a read folds first, are still read while the fold cannot be written.
	if cs, err := st.CompanyList(ctx, ws.ID, core.CompanyQuery{Limit: 10}); err != nil || len(cs) != 1 || cs[0].FeedbackCount != created {
		t.Fatalf("companies with a full disk: %+v, %v; want one with %d records", cs, err, created)
	}
	if err := st.Ping(ctx); err == nil || !strings.Contains(err.Error(), "writes are failing") {
		t.Fatalf("ping with a full disk: %v, want the failing writes reported", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for err := st.Ping(ctx); err != nil; err = st.Ping(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("ping 5 s after space was freed: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, _, err := st.CreateRecord(ctx, ws.ID, contactRecord("d@acme.com", "")); err != nil {
		t.Fatalf("write after space was freed: %v", err)
	}
}
