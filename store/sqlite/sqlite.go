// Package sqlite is feedbridge's embedded store: one SQLite file (WAL) behind the core.Store interface.
// Writes go through a single connection in BEGIN IMMEDIATE transactions, so the rules that need
// serialising (idea limit, idempotency, dedup) hold without retries; reads use a small pool of query-only
// connections. Every query is scoped by workspace id.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
	"github.com/feedbridge/feedbridge/store/internal/jobqueue"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is the SQLite implementation of core.Store. It is safe for concurrent use.
type Store struct {
	w    *sql.DB // exactly one connection: the single writer
	wc   *stmtCache
	r    *sql.DB // query-only readers
	rq   reader
	sr   *sql.DB // query-only readers for searches alone
	sq   reader
	path string
	now  func() time.Time
	mode searchMode
	role Mode  // how this process uses the store (mode.go)
	turn *turn // writers of other processes get their turn (turn.go); nil when read-only
	busy time.Duration

	signals    *fairshare.Gate   // one signals aggregation at a time per workspace
	searches   *fairshare.Gate   // one search at a time per workspace
	readLimit  time.Duration     // longest a listing may run, whatever the caller's deadline
	driveMax   int               // see driveMax; tests lower it to take the other path
	lookupMax  int               // see lookupMax; tests lower it to take the other path
	scanMax    int               // see scanMax; tests lower it to take the other path
	claimAfter map[string]string // per queue, the workspace its last fair claim ended on (queue_fair.go); the writer's

	jobqueue.Views // insight jobs and deliveries on the general queue

	qmu          sync.Mutex    // guards queue and closed
	queue        []*writeReq   // writes waiting for the writer (group.go)
	closed       bool          // set by Close: no more writes are queued
	lead         chan struct{} // capacity 1: held by the write running the writer's current transaction
	quit         chan struct{} // closed by Close, ends maintain
	stopped      chan struct{} // closed when maintain has ended
	restat       chan struct{} // capacity 1: an import finished, refresh the planner's statistics (group.go)
	kick         chan struct{} // capacity 1: full-text entries were queued (indexer.go)
	urgent       chan struct{} // capacity 1: the queue is long, drain it now
	indexed      chan struct{} // closed when the indexer has ended
	ck           *sql.DB       // one connection that checkpoints the log (checkpoint.go)
	checkpointed chan struct{} // closed when the checkpointer has ended
	backlog      atomic.Int64  // full-text entries queued and not yet drained, as far as this process knows
	indexChunk   atomic.Int64  // entries one index drain transaction moves (indexer.go)
	resolved     *resolved     // contacts and companies committed by this process (resolved.go)
	health       writeHealth   // the writer's last storage failure (health.go)
	once         sync.Once
	numMu        sync.Mutex
	nums         map[core.ID]int64 // workspace numbers (seq.go); they never change
	commits      atomic.Int64      // transactions committed by the writer, for the benchmarks' writes/commit
	grouped      atomic.Int64      // writes in them

	erasure atomic.Pointer[[]byte] // the key of erased dedup keys, once read (erasekeys.go)
	budget  *pageBudget            // holds the search readers' page cache (pagecache.go)

	writerBegan  atomic.Int64 // when the writer last began a transaction, in Unix ns (writermap.go)
	writerMapped atomic.Bool  // the writer may hold pages of its map since it last let go of it
	mapIdle      atomic.Int64 // writerIdle in ns; tests change it
}

var _ core.Store = (*Store)(nil)

// readers is the size of the read pool; the machines this runs on have few cores and SQLite readers are
// CPU-bound, so more connections only add contention.
const readers = 4

// searchReaders is the size of the search pool. A search can read a workspace's whole full-text posting
// list, so searches get readers of their own: however many run, authentication, lookups and plain
// listings keep all of the main pool. Each workspace holds at most one of them at a time, so two tenants'
// searches never wait on each other's backlog, only on their own, and workspaces that search without pause
// share one of them between them: the other is kept for the rest (fairshare.NewSearchGate).
const searchReaders = 2

// readerCacheKiB and searchCacheKiB are each connection's share of the page cache of the two read pools
// (a search reader's is held for it, see searchConnKiB). The cache stays filled while the store is open, so
// after a burst of reads the daemon holds about readers×readerCacheKiB + searchReaders×searchCacheKiB of it;
// pages beyond it are read again from the operating system's cache, which the kernel shares and reclaims.
const (
	readerCacheKiB = 4 << 10
	searchCacheKiB = 4 << 10
)

// writerMapBytes is how much of the database file the writer reads through a memory map (see open). The
// pages it has touched count in the daemon's resident memory (as file-backed memory, which the kernel can
// drop) up to this size, until the writer has been idle for a while (releaseMap); past it the writer reads
// with system calls.
const writerMapBytes = 32 << 20

// readLimit is the longest a listing runs before it is interrupted and answered as unavailable.
const readLimit = 10 * time.Second

// busyTimeout is how long a write waits for another process's lock (the CLI next to the daemon) before it
// fails as unavailable.
const busyTimeout = 5 * time.Second

// Open opens (creating when missing) the SQLite database at path and applies every pending migration. It
// is the daemon's open: the store also indexes, checkpoints and refreshes statistics in the background.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, busyTimeout, ModeDaemon)
}

func open(ctx context.Context, path string, busy time.Duration, mode Mode) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: open: empty path")
	}
	if err := prepareFile(path, mode); err != nil {
		return nil, err
	}
	// The writer reads the pages it changes through a memory map: FTS5's segment merges re-read much of the
	// index, and reading it with a system call per page was most of the bulk path's time past 100k
	// records. Only the writer maps, and at most writerMapBytes of the file: a reader drops its map whenever another
	// connection commits.
	w, err := sql.Open("sqlite", dsn(path, busy, mode.writerDSN()))
	if err != nil {
		return nil, openError(path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	// The connection opens with the full busy timeout (switching a new file to WAL may wait for another
	// process), then waits at most beginPoll per statement: begin does the longer wait itself, watching
	// its callers. A connection the driver had to replace waits the full timeout again, as before.
	if err := firstConn(ctx, w, busy); err != nil {
		w.Close()
		return nil, openError(path, err)
	}
	s := &Store{w: w, wc: newStmtCache(w), path: path, now: time.Now, busy: busy, searches: fairshare.NewSearchGate(searchReaders), signals: fairshare.NewSignalGate(), readLimit: readLimit, driveMax: driveMax, lookupMax: lookupMax, scanMax: scanMax,
		role: mode, turn: openTurn(path, mode),
		lead: make(chan struct{}, 1), nums: map[core.ID]int64{}, quit: make(chan struct{}), stopped: make(chan struct{}), restat: make(chan struct{}, 1),
		resolved: newResolved(), kick: make(chan struct{}, 1), urgent: make(chan struct{}, 1), indexed: make(chan struct{}), checkpointed: make(chan struct{})}
	s.Views = jobqueue.Views{Q: s}
	s.mapIdle.Store(int64(writerIdle))
	s.claimAfter = map[string]string{}
	s.indexChunk.Store(firstIndexChunk)
	if mode != ModeDaemon {
		// A command lives for a moment next to the daemon, which does the background work.
		close(s.stopped)
		close(s.indexed)
		if err := s.ensureSchema(ctx); err != nil {
			s.Close()
			return nil, openError(path, err)
		}
		if err := s.openPools(); err != nil {
			return nil, err
		}
		return s, nil
	}
	go s.maintain()
	go s.indexer()
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, openError(path, err)
	}
	if err := s.write(ctx, "optimize", optimize); err != nil {
		s.Close()
		return nil, err
	}
	// Entries queued before a restart (or by another process) are drained soon after opening.
	var queued int
	if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM records_fts_pending`).Scan(&queued); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.queued(queued)
	if err := s.openPools(); err != nil {
		return nil, err
	}
	ck, err := sql.Open("sqlite", dsn(path, busy, ""))
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	ck.SetMaxOpenConns(1)
	s.ck = ck
	go s.checkpointer()
	return s, nil
}

// firstConn opens the writer's connection and lowers its busy timeout to beginPoll. Switching a new file to
// WAL as the connection opens can answer SQLITE_BUSY at once, without waiting, while another process opens
// the same new file; that try is repeated until busy has passed.
func firstConn(ctx context.Context, w *sql.DB, busy time.Duration) error {
	deadline := time.Now().Add(busy)
	for {
		_, err := w.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(beginPoll.Milliseconds(), 10))
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// openPools opens the two read pools (see searchReaders). They open after the migrations so that their
// first statement already sees the schema. On failure the store is closed.
func (s *Store) openPools() error {
	budget, err := openPageBudget(s.path, s.busy, pageBudgetKiB, s.role.readerDSN())
	if err != nil {
		s.Close()
		return fmt.Errorf("sqlite: open %s: page budget: %w", s.path, err)
	}
	s.budget = budget
	r, err := openReaders(s.path, s.busy, readers, readerCacheKiB, s.role.readerDSN())
	if err != nil {
		s.Close()
		return fmt.Errorf("sqlite: open %s: %w", s.path, err)
	}
	s.r, s.rq = r, reader{newStmtCache(r)}
	sr, err := openReaders(s.path, s.busy, searchReaders, searchConnKiB, s.role.readerDSN())
	if err != nil {
		s.Close()
		return fmt.Errorf("sqlite: open %s: %w", s.path, err)
	}
	s.sr, s.sq = sr, reader{newStmtCache(sr)}
	return nil
}

// openReaders opens a pool of n query-only connections, each with a page cache of cacheKiB; extra is the
// process's own parameters (read-only, see Mode).
func openReaders(path string, busy time.Duration, n, cacheKiB int, extra string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(path, busy, "&_query_only=1&_pragma=cache_size(-"+strconv.Itoa(cacheKiB)+")"+extra))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	return db, nil
}

// dsn builds the driver's name for path: a file: URI (so a path with '?' or '#' survives) with the pragmas
// every connection needs.
func dsn(path string, busy time.Duration, extra string) string {
	p := (&url.URL{Path: path}).EscapedPath()
	journal := "&_pragma=journal_mode(WAL)"
	if strings.Contains(extra, "mode=ro") {
		journal = "" // a read-only connection cannot switch a copy (a restored backup) to WAL
	}
	return "file:" + p + "?_pragma=busy_timeout(" + strconv.FormatInt(busy.Milliseconds(), 10) + ")" + journal + "&_pragma=synchronous(NORMAL)" +
		"&_pragma=foreign_keys(1)&_pragma=temp_store(MEMORY)" + extra
}

// Path is the database file the store was opened on.
func (s *Store) Path() string { return s.path }

// Ping checks that the database answers, that its schema is the one this binary expects, and that writes
// are not failing for lack of storage (health.go).
func (s *Store) Ping(ctx context.Context) error {
	v, err := s.schemaVersion(ctx, s.rq)
	if err != nil {
		return s.fail("ping", err)
	}
	if want := latestVersion(); v != want {
		return fmt.Errorf("sqlite: ping: schema version %d, this binary needs %d (run feedbridge migrate): %w", v, want, core.ErrUnavailable)
	}
	return s.checkWrites(ctx)
}

// Close stops the writer after its current transaction and closes both pools. Writes after Close fail
// with core.ErrUnavailable; closing twice is harmless.
func (s *Store) Close() error {
	s.once.Do(func() {
		close(s.quit)
		s.qmu.Lock()
		s.closed = true
		s.qmu.Unlock()
	})
	<-s.stopped
	<-s.indexed
	if s.ck != nil {
		<-s.checkpointed
	}
	// Wait for the transaction in progress; writes still queued behind it are answered as closed.
	s.lead <- struct{}{}
	for batch := s.take(); len(batch) > 0; batch = s.take() {
		for _, r := range batch {
			r.done <- fmt.Errorf("sqlite: %s: %w", r.op, errClosed)
		}
	}
	defer func() { <-s.lead }()
	var errs []error
	if s.r != nil {
		s.rq.c.close()
		errs = append(errs, s.r.Close())
	}
	if s.sr != nil {
		s.sq.c.close()
		errs = append(errs, s.sr.Close())
	}
	if s.ck != nil {
		errs = append(errs, s.ck.Close())
	}
	errs = append(errs, s.budget.close())
	s.wc.close()
	errs = append(errs, s.w.Close())
	s.turn.close()
	return errors.Join(errs...)
}

// nowMS is the store's clock in Unix milliseconds, for lease and queue times.
func (s *Store) nowMS() int64 { return s.now().UnixMilli() }

// prepare caches the writer's statements that a transaction had to run unprepared. Failures only mean
// the statement stays unprepared.
func (s *Store) prepare(ctx context.Context, queries []string) {
	for _, q := range queries {
		s.wc.get(ctx, q)
	}
}
