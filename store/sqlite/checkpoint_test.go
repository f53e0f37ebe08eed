package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestLogCheckpointedInBackground writes past the background threshold, then stops writing: the pages must
// reach the database file without another write to trigger a checkpoint.
func TestLogCheckpointedInBackground(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ck.db")
	st := openT(t, path)
	ws := core.Workspace{ID: core.NewID(), Name: "ck", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	big := strings.Repeat("checkpoint ", 1000)
	var batch []core.NewRecord
	for i := 0; i < 200; i++ {
		nr := contactRecord("c@acme.com", "")
		nr.Description, nr.SearchText = big, big
		batch = append(batch, nr)
	}
	// Each batch is one transaction: the writer itself never checkpoints below 16 MB of log.
	for size(path+"-wal") <= walCheckpointBytes {
		for i := range batch {
			batch[i].ID = core.NewID()
		}
		if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
			t.Fatal(err)
		}
	}
	before := size(path)
	deadline := time.Now().Add(5 * time.Second)
	for size(path) <= before {
		if time.Now().After(deadline) {
			t.Fatalf("database file still %d bytes 5 s after the log reached %d bytes", before, size(path+"-wal"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
