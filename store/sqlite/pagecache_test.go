package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	msqlite "modernc.org/sqlite"
)

// cacheCounts reads and resets the page cache hits and misses of a pool's only connection.
func cacheCounts(t *testing.T, db *sql.DB) (hits, misses int) {
	t.Helper()
	c, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error {
		st := dc.(msqlite.DBStatus)
		var err error
		if hits, _, err = st.Status(msqlite.DBStatusCacheHit, true); err != nil {
			return err
		}
		misses, _, err = st.Status(msqlite.DBStatusCacheMiss, true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return hits, misses
}

// TestSearchReaderKeepsItsPages: a search reader that reads the same records twice finds them in the page
// cache the second time, even after a listing reader has read more of the file than its own share of the
// cache. With a cache size of its own as large as its share, the search reader, idle while the listing
// reader read, lost its pages to it and then freed every page it read as soon as it had read it.
func TestSearchReaderKeepsItsPages(t *testing.T) {
	ctx := context.Background()
	st := openT(t, filepath.Join(t.TempDir(), "cache.db"))
	ws := core.Workspace{ID: core.NewID(), Name: "cache", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	// Records of about two pages each (3,000 bytes of description and as much of search text): in all about
	// three times a listing reader's share of the cache.
	n := 3 * readerCacheKiB / 8
	base := time.Now().Add(-time.Duration(n) * time.Second)
	var batch []core.NewRecord
	for i := range n {
		at := base.Add(time.Duration(i) * time.Second)
		desc := strings.Repeat(fmt.Sprintf("record %d wants export. ", i), 200)[:3000]
		batch = append(batch, core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: fmt.Sprintf("r%d", i),
			Description: desc, SearchText: core.Fold(desc), Status: core.StatusTriage, Source: "API", CreatedAt: at, UpdatedAt: at})
		if len(batch) == 500 || i == n-1 {
			if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := st.FlushIndex(ctx); err != nil {
		t.Fatal(err)
	}
	// One connection per pool, so that the counts are those of the connection that read.
	st.r.SetMaxOpenConns(1)
	st.sr.SetMaxOpenConns(1)
	seqAt := func(k int) (seq int64) {
		if err := st.w.QueryRowContext(ctx, `SELECT seq FROM records ORDER BY seq LIMIT 1 OFFSET ?`, k).Scan(&seq); err != nil {
			t.Fatal(err)
		}
		return seq
	}
	read := func(db *sql.DB, from, to int) (hits, misses int) {
		t.Helper()
		cacheCounts(t, db)
		var sum int64
		if err := db.QueryRowContext(ctx, `SELECT sum(length(search_text)) FROM records WHERE seq >= ? AND seq < ?`,
			seqAt(from), seqAt(to)).Scan(&sum); err != nil || sum == 0 {
			t.Fatal(sum, err)
		}
		return cacheCounts(t, db)
	}
	// The two readers take turns, as listings and searches do: the search reader reads some records (about
	// three quarters of its share), the listing reader every record. Then the search reader reads its records
	// twice.
	some := searchCacheKiB / 8 // records of about 1.5 pages of 4 KiB
	for range 3 {
		read(st.sr, n/2, n/2+some)
		read(st.r, 0, n-1)
	}
	read(st.sr, n/2, n/2+some)
	hits, misses := read(st.sr, n/2, n/2+some)
	if misses*10 > hits+misses {
		t.Errorf("the search reader's second read of the same records: %d of %d pages read from the file", misses, hits+misses)
	}
}
