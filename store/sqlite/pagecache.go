package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"
)

// The SQLite build this store links keeps one page cache for all of a process's connections: each
// connection's cache_size adds to a common budget. A connection that has reached its own size takes the
// least recently used page of any connection; one below its own size takes fresh memory instead, and while
// the budget is spent it frees each page as soon as its statement lets go of it. A search reader sits idle
// between searches while the listing readers work: they reached their size, took its pages (the least
// recently used) and kept them, and from then on the search reader read every page of every search from
// the operating system again, for as long as no write made the readers drop their caches. The search
// readers now have a small size of their own (searchConnKiB), which a search passes within its first
// statement, so they take the least recently used pages of the whole cache as the listing readers do; the
// rest of their share is held by a connection that reads nothing (openPageBudget). That budget's room is
// what keeps their pages: while the whole budget is spent, a connection frees the pages it reads even at
// its own size, until reads drop below it again (a write makes every reader drop its cache).
const searchConnKiB = 256

// pageBudgetKiB is the part of the search readers' share of the page cache (searchCacheKiB) that the
// budget connection holds for them.
const pageBudgetKiB = searchReaders * (searchCacheKiB - searchConnKiB)

// pageBudget is the connection that holds the search readers' page budget: it is opened with that cache
// size and kept open, unused, until Close.
type pageBudget struct {
	db   *sql.DB
	conn *sql.Conn
}

// openPageBudget opens the budget connection of kib KiB for the database at path; extra is the process's
// own parameters (read-only, see Mode).
func openPageBudget(path string, busy time.Duration, kib int, extra string) (*pageBudget, error) {
	db, err := sql.Open("sqlite", dsn(path, busy, "&_query_only=1&_pragma=cache_size(-"+strconv.Itoa(kib)+")"+extra))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithTimeout(context.Background(), busy+time.Second)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err == nil {
		var n int
		err = conn.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&n)
		if err == nil && n != -kib {
			err = fmt.Errorf("cache size %d, want %d", n, -kib)
		}
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		db.Close()
		return nil, err
	}
	return &pageBudget{db: db, conn: conn}, nil
}

// close closes the budget connection; b may be nil (the store closed before its pools opened).
func (b *pageBudget) close() error {
	if b == nil {
		return nil
	}
	b.conn.Close()
	return b.db.Close()
}
