package sqlite

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// mappedKB reports whether this process maps the file at path, and the resident kB of those mappings
// (/proc/self/smaps).
func mappedKB(t *testing.T, path string) (bool, int) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	found, kb, in := false, 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[5] == path
			found = found || in
			continue
		}
		if in && fields[0] == "Rss:" && len(fields) >= 2 {
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatal(sc.Text(), err)
			}
			kb += n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return found, kb
}

// TestIdleWriterLetsGoOfItsMap: the writer's map of the database file, which its reads leave resident, is
// let go once the writer has begun no transaction for its idle time, not before; the next write maps the
// file again, at the same size.
func TestIdleWriterLetsGoOfItsMap(t *testing.T) {
	path, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(path, "map.db")
	st := openT(t, path)
	st.mapIdle.Store(int64(time.Hour))
	ws := fillY(t, st, 5000)
	// The pages copied into the file, then the writer reading them through the map, as its transactions
	// do outside its page cache.
	if _, err := st.w.ExecContext(t.Context(), `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	write := func(title string) {
		t.Helper()
		at := time.Now()
		if _, err := st.CreateRecords(t.Context(), ws, []core.NewRecord{{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: title,
			SearchText: core.Fold(title), Status: core.StatusTriage, Source: "API", CreatedAt: at, UpdatedAt: at}}); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := st.w.QueryRowContext(t.Context(), `SELECT sum(length(title)) FROM records`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if found, kb := mappedKB(t, path); !found || kb == 0 {
		t.Fatalf("after the writes: mapped %v, %d kB resident; want the writer's map resident", found, kb)
	}
	// The writer has been idle for less than mapIdle.
	st.releaseMap()
	if found, kb := mappedKB(t, path); !found || kb == 0 {
		t.Fatalf("writer idle for less than its time: mapped %v, %d kB resident; want the map kept", found, kb)
	}
	st.mapIdle.Store(0)
	st.releaseMap()
	if found, kb := mappedKB(t, path); found {
		t.Fatalf("writer idle for its time: the file is still mapped (%d kB resident)", kb)
	}
	write("and another says yyyy")
	if found, _ := mappedKB(t, path); !found {
		t.Fatal("after a write: the writer does not map the file again")
	}
	var size int
	if err := st.w.QueryRowContext(t.Context(), `PRAGMA mmap_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size != writerMapBytes {
		t.Fatalf("writer's mmap_size %d, want %d", size, writerMapBytes)
	}
}
