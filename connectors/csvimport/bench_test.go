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
	"strconv"
	"strings"
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
	uniform := benchData{
		file: func() io.Reader { return &rowSource{rows: *benchRows} },
		raw:  uniformRows,
	}
	b.Run("sqlite", func(b *testing.B) { benchImport(b, "sqlite", uniform) })
	b.Run("postgres", func(b *testing.B) { benchImport(b, "postgres", uniform) })
}

// benchData is the input of an import benchmark: the CSV file, the same rows for the raw floor, and what
// the workspace must hold before the import (its tags).
type benchData struct {
	file  func() io.Reader
	raw   func() func() rawRow
	setup func(b *testing.B, st core.Store, ws core.ID)
}

func benchImport(b *testing.B, backend string, data benchData) {
	dir := b.TempDir()
	in := filepath.Join(dir, "bench.csv")
	f, err := os.Create(in)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, data.file()); err != nil {
		b.Fatal(err)
	}
	f.Close()
	var importTime, rawTime, flushTime time.Duration
	var peak uint64
	raw := func(name string) time.Duration {
		if backend == "postgres" {
			return rawCopy(b, *benchRows, data.raw())
		}
		return rawInsert(b, filepath.Join(dir, name), *benchRows, data.raw())
	}
	tenths := make([]time.Duration, 10)
	var ioTenths [10]procIO
	for i := 0; b.Loop(); i++ {
		rawTime += raw(fmt.Sprintf("raw-%d-before.db", i))
		svc, ws, _ := benchService(b, backend, filepath.Join(dir, fmt.Sprintf("import-%d.db", i)))
		if data.setup != nil {
			data.setup(b, svc.Store(), ws)
		}
		stop := samplePeakHeap(&peak)
		clock := newTenthClock(*benchRows)
		run, err := ImportFile(context.Background(), svc, ws, in, Options{Progress: clock.progress})
		flushStart := time.Now()
		if err == nil {
			err = flushIndex(svc.Store())
		}
		flushTime += time.Since(flushStart)
		clock.done(run.Created)
		importTime += clock.total()
		for t, d := range clock.tenths {
			tenths[t] += d
			ioTenths[t].written += clock.ioTenths[t].written
			ioTenths[t].reads += clock.ioTenths[t].reads
		}
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
	b.ReportMetric(flushTime.Seconds()/importTime.Seconds(), "flush-share")
	tenth := rows / 10
	for t, d := range tenths {
		b.ReportMetric(tenth/d.Seconds(), fmt.Sprintf("tenth-%02d-rows/s", t+1))
	}
	b.ReportMetric(tenths[0].Seconds()/tenths[9].Seconds(), "last-tenth-ratio")
	if backend == "sqlite" && ioTenths[9].written > 0 {
		// Load-independent: 4 KiB pages written and read calls per row, first and last tenth.
		for _, t := range []int{0, 9} {
			b.ReportMetric(float64(ioTenths[t].written)/4096/tenth, fmt.Sprintf("tenth-%02d-pages-written/row", t+1))
			b.ReportMetric(float64(ioTenths[t].reads)/tenth, fmt.Sprintf("tenth-%02d-reads/row", t+1))
		}
	}
}

// tenthClock times each tenth of an import's rows from the importer's progress reports, which come after
// every batch: a tenth ends with the first batch that reaches it.
type tenthClock struct {
	rows   int
	start  time.Time
	ends   [10]time.Time
	tenths [10]time.Duration
	// The process's input and output counters at the start and at each tenth's end, and what each tenth
	// wrote and read: counts that, unlike the times, do not depend on the machine's load.
	io0      procIO
	ioEnds   [10]procIO
	ioTenths [10]procIO
}

func newTenthClock(rows int) *tenthClock {
	c := &tenthClock{rows: rows, start: time.Now()}
	c.io0 = readProcIO()
	return c
}

func (c *tenthClock) progress(run core.ImportRun) {
	now := time.Now()
	var io procIO
	for t := range c.ends {
		if c.ends[t].IsZero() && run.Created*10 >= (t+1)*c.rows {
			if io == (procIO{}) {
				io = readProcIO()
			}
			c.ends[t], c.ioEnds[t] = now, io
		}
	}
}

// done closes the last tenths at the end of the import, the index flush included. Tenths that one batch
// ended together (a batch larger than a tenth) share its time evenly.
func (c *tenthClock) done(created int) {
	c.progress(core.ImportRun{Created: created})
	now, io := time.Now(), readProcIO()
	for t := range c.ends {
		if c.ends[t].IsZero() || t == len(c.ends)-1 {
			c.ends[t], c.ioEnds[t] = now, io
		}
	}
	prev, prevIO := c.start, c.io0
	for t := 0; t < len(c.ends); {
		n := 1
		for t+n < len(c.ends) && c.ends[t+n].Equal(c.ends[t]) {
			n++
		}
		for k := range n {
			c.tenths[t+k] = max(c.ends[t].Sub(prev)/time.Duration(n), time.Microsecond)
			c.ioTenths[t+k] = procIO{written: (c.ioEnds[t].written - prevIO.written) / int64(n),
				reads: (c.ioEnds[t].reads - prevIO.reads) / int64(n)}
		}
		prev, prevIO = c.ends[t], c.ioEnds[t]
		t += n
	}
}

// procIO is what the process has written (bytes) and how many read calls it has made, from Linux's
// /proc/self/io; zero where that file is missing. On SQLite nearly all of it is the store's: log pages
// written and copied back by checkpoints, and pages read outside the writer's memory map and cache.
type procIO struct{ written, reads int64 }

func readProcIO() procIO {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return procIO{}
	}
	var io procIO
	for line := range strings.Lines(string(b)) {
		name, value, _ := strings.Cut(strings.TrimSpace(line), ": ")
		n, _ := strconv.ParseInt(value, 10, 64)
		switch name {
		case "wchar":
			io.written = n
		case "syscr":
			io.reads = n
		}
	}
	return io
}

func (c *tenthClock) total() time.Duration { return c.ends[9].Sub(c.start) }

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

// rawRow is one row as the raw baselines store it.
type rawRow struct {
	title, desc, email, dedup string
	created                   time.Time
}

// uniformRows returns the rows of rowSource as the raw baselines store them, one per call.
func uniformRows() func() rawRow {
	i := 0
	created := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	return func() rawRow {
		i++
		return rawRow{fmt.Sprintf("Row %d title", i), "Some description, with a comma\nand a second line",
			fmt.Sprintf("user%d@acme.com", i%5000), fmt.Sprintf("csv:cli:ext-%d", i), created}
	}
}

// rawCopy COPYs rows from next into the records table of a fresh PostgreSQL schema, which has every index
// the store keeps on it (the trigram index of search included).
func rawCopy(b testing.TB, rows int, next func() rawRow) time.Duration {
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
	start := time.Now()
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"records"},
		[]string{"workspace_id", "id", "type", "title", "description_html", "description", "search_text", "status",
			"source", "customer_email", "dedup_key", "created_at", "updated_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if rows == 0 {
				return nil, nil
			}
			r := next()
			rows--
			return []any{string(ws), string(core.NewIDAt(r.created)), string(core.RecordFeedback), r.title, r.desc, r.desc,
				core.Fold(r.title + "\n" + r.desc), core.StatusTriage, "CSV", r.email, r.dedup, r.created, r.created}, nil
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
func rawInsert(b testing.TB, path string, rows int, next func() rawRow) time.Duration {
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
	for range rows {
		r := next()
		if _, err := stmt.Exec(core.NewIDAt(r.created), ws, core.RecordFeedback, r.title, r.desc, r.desc, core.Fold(r.title+"\n"+r.desc),
			core.StatusTriage, "CSV", r.email, r.dedup, r.created.UnixMilli(), r.created.UnixMilli()); err != nil {
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

// TestTenthClockCountsWrites holds that the benchmark's per-tenth write counts follow the process's own
// writes: the tenth in which a megabyte is written counts it, the tenths around it do not.
func TestTenthClockCountsWrites(t *testing.T) {
	if readProcIO() == (procIO{}) {
		t.Skip("no /proc/self/io here")
	}
	path := filepath.Join(t.TempDir(), "w")
	c := newTenthClock(10)
	for i := 1; i <= 10; i++ {
		if i == 5 {
			if err := os.WriteFile(path, make([]byte, 1<<20), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		c.progress(core.ImportRun{Created: i})
	}
	c.done(10)
	if got := c.ioTenths[4].written; got < 1<<20 {
		t.Errorf("fifth tenth wrote %d bytes, want at least %d", got, 1<<20)
	}
	for _, k := range []int{3, 5} {
		if got := c.ioTenths[k].written; got >= 1<<20 {
			t.Errorf("tenth %d counted %d bytes written, want the fifth's megabyte only there", k+1, got)
		}
	}
}
