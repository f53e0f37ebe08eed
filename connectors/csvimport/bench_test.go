package csvimport

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

var benchRows = flag.Int("bench-rows", 100_000, "rows in the file of BenchmarkImport (the issue's figure uses 1000000)")

// BenchmarkImport imports a generated file through the whole importer into a fresh store, and inserts the
// same rows into other fresh stores of the same schema as fast as the database takes them (SQLite: prepared
// INSERTs and the full-text entries in one transaction; PostgreSQL: COPY), once before the import and once
// after: the mean of the two is the floor, since on a shared machine a floor taken at one other moment
// swung the ratio by half between runs. It reports both rates, their ratio and the peak heap of the import.
// PostgreSQL runs when FEEDBRIDGE_TEST_POSTGRES_URL is set.
//
//	go test ./connectors/csvimport -run '^$' -bench Import -benchtime 1x -bench-rows 1000000
func BenchmarkImport(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchImport(b, "sqlite") })
	b.Run("postgres", func(b *testing.B) { benchImport(b, "postgres") })
}

func benchImport(b *testing.B, backend string) {
	dir := b.TempDir()
	in := filepath.Join(dir, "bench.csv")
	f, err := os.Create(in)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, &rowSource{rows: *benchRows}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	var importTime, rawTime time.Duration
	var peak uint64
	raw := func(name string) time.Duration {
		if backend == "postgres" {
			return rawCopy(b, *benchRows)
		}
		return rawInsert(b, filepath.Join(dir, name), *benchRows)
	}
	for i := 0; b.Loop(); i++ {
		rawTime += raw(fmt.Sprintf("raw-%d-before.db", i))
		svc, ws, _ := benchService(b, backend, filepath.Join(dir, fmt.Sprintf("import-%d.db", i)))
		stop := samplePeakHeap(&peak)
		start := time.Now()
		run, err := ImportFile(context.Background(), svc, ws, in, Options{})
		if err == nil {
			err = flushIndex(svc.Store())
		}
		importTime += time.Since(start)
		stop()
		if err != nil || run.Created != *benchRows {
			b.Fatalf("import: %+v, %v", run, err)
		}
		svc.Store().Close()
		rawTime += raw(fmt.Sprintf("raw-%d-after.db", i))
	}
	rows := float64(*benchRows * b.N)
	importRate, rawRate := rows/importTime.Seconds(), 2*rows/rawTime.Seconds()
	b.ReportMetric(importRate, "import-rows/s")
	b.ReportMetric(rawRate, "raw-rows/s")
	b.ReportMetric(importRate/rawRate, "ratio")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// flushIndex writes the full-text entries that a SQLite store still has queued, so that the import's time
// includes every record being searchable through the index.
func flushIndex(st core.Store) error {
	if f, ok := st.(interface{ FlushIndex(context.Context) error }); ok {
		return f.FlushIndex(context.Background())
	}
	return nil
}

// benchService opens a fresh store with one workspace: the SQLite file at path, or a new PostgreSQL schema.
func benchService(b testing.TB, backend, path string) (*core.Service, core.ID, string) {
	dsn := path
	if backend == "postgres" {
		dsn = pgtest.URL(b)
	}
	st, err := openStore(context.Background(), backend, dsn)
	if err != nil {
		b.Fatal(err)
	}
	svc := core.NewService(st, core.Options{})
	w, err := svc.CreateWorkspace(context.Background(), "Bench", core.PlanBusiness, 0)
	if err != nil {
		b.Fatal(err)
	}
	return svc, w.ID, dsn
}

// benchRow is row i of rowSource as the raw baselines store it.
func benchRow(i int) (title, desc, email, dedup string) {
	return fmt.Sprintf("Row %d title", i), "Some description, with a comma\nand a second line",
		fmt.Sprintf("user%d@acme.com", i%5000), fmt.Sprintf("csv:cli:ext-%d", i)
}

// rawCopy COPYs the rows into the records table of a fresh PostgreSQL schema.
func rawCopy(b testing.TB, rows int) time.Duration {
	svc, ws, dsn := benchService(b, "postgres", "")
	svc.Store().Close()
	ctx := context.Background()
	u, err := url.Parse(dsn)
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Del("pool_max_conns") // a pool setting that a single connection refuses
	u.RawQuery = q.Encode()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	created := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	start := time.Now()
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"records"},
		[]string{"workspace_id", "id", "type", "title", "description_html", "description", "search_text", "status",
			"source", "customer_email", "dedup_key", "created_at", "updated_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if rows == 0 {
				return nil, nil
			}
			title, desc, email, dedup := benchRow(rows)
			rows--
			return []any{string(ws), string(core.NewIDAt(created)), string(core.RecordFeedback), title, desc, desc,
				title + "\n" + desc, core.StatusTriage, "CSV", email, dedup, created, created}, nil
		}))
	if err != nil || n == 0 {
		b.Fatalf("copy: %d rows, %v", n, err)
	}
	return time.Since(start)
}

// samplePeakHeap records the largest heap in use until the returned stop is called.
func samplePeakHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for !done.Load() {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			time.Sleep(20 * time.Millisecond)
		}
	})
	return func() { done.Store(true); wg.Wait() }
}

// rawInsert writes rows shaped like rowSource's into a fresh store file as fast as SQLite takes them: a
// prepared INSERT into records per row and then their full-text entries in one statement, all in one
// transaction. The full-text entries are part of the floor because the store writes them itself (since its
// migration 0002; a trigger wrote them before), so without them the floor would store rows no search finds.
func rawInsert(b testing.TB, path string, rows int) time.Duration {
	svc, ws, _ := benchService(b, "sqlite", path)
	svc.Store().Close()
	// The store's writer's connection settings, so that only the way of inserting differs.
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"+
		"&_pragma=temp_store(MEMORY)&_txlock=immediate&_pragma=mmap_size(8589934592)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO records(id, workspace_id, type, title, description_html, description, search_text,
		status, source, customer_email, dedup_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	created := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := 1; i <= rows; i++ {
		title, desc, email, dedup := benchRow(i)
		if _, err := stmt.Exec(core.NewIDAt(created), ws, core.RecordFeedback, title, desc, desc, title+"\n"+desc,
			core.StatusTriage, "CSV", email, dedup, created.UnixMilli(), created.UnixMilli()); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := tx.Exec(`INSERT INTO records_fts(rowid, search_text) SELECT seq, search_text FROM records`); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
