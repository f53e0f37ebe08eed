package suggest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Source is where an Index reads a workspace's Ideas and Features; core.Store is one.
type Source interface {
	Records(ctx context.Context, ws core.ID, q core.ListQuery) ([]core.Record, error)
}

// Options tune an Index; zero values are the defaults.
type Options struct {
	// Refresh is how old a workspace's index may grow before a query has what changed since read (default
	// 2s). A record written through another replica is seen here within about Refresh, or, when it was
	// committed more than Overlap after it was stamped, by the next rebuild.
	Refresh time.Duration
	// Rebuild is how old an index may grow before it is read again from scratch (default 10 minutes),
	// which drops what was deleted or merged; those are never shown before, as core reads every candidate
	// again.
	Rebuild time.Duration
	// MaxWorkspaces bounds the indexes held; the least recently used goes first (default 100).
	MaxWorkspaces int
	// MaxText bounds the characters of a description that are indexed (default 4000): the start of a
	// description says what it is about, and the bound keeps memory in proportion to the record count.
	MaxText int
	Now     func() time.Time
}

// Overlap is how far back each incremental read reaches before the previous one started, so that a record
// committed a little late, or stamped by a replica whose clock is a little behind, is still read. A record
// later than that is read by the next rebuild. Every record updated within it is read again at each
// refresh (and skipped as unchanged), so it is kept short.
const Overlap = 15 * time.Second

// pageSize is the page of each read from the store.
const pageSize = 1000

// Index holds one in-memory index per workspace, built from the store on first use and kept current by
// reading the records updated since the last read, and by Changed for what this replica writes. It implements core.Matcher and is safe for concurrent
// use.
type Index struct {
	src Source
	opt Options
	lex *lexicon

	mu sync.Mutex
	ws map[core.ID]*wsIndex
	bg sync.WaitGroup // background reads
}

var _ core.Matcher = (*Index)(nil)

// wsIndex is one workspace's index. load admits one reader of the store at a time; mu guards the rest.
type wsIndex struct {
	load sync.Mutex

	mu       sync.RWMutex
	ix       *index
	builtAt  time.Time
	readAt   time.Time // when the last read of the store started
	lastUsed time.Time
	building chan struct{} // closed when the running first build ends; nil when none runs
	buildErr error         // why the last first build failed
}

// New makes an Index over src.
func New(src Source, o Options) *Index {
	if o.Refresh <= 0 {
		o.Refresh = 2 * time.Second
	}
	if o.Rebuild <= 0 {
		o.Rebuild = 10 * time.Minute
	}
	if o.MaxWorkspaces <= 0 {
		o.MaxWorkspaces = 100
	}
	if o.MaxText <= 0 {
		o.MaxText = 4000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Index{src: src, opt: o, lex: defaultLexicon(), ws: map[core.ID]*wsIndex{}}
}

// Match ranks the workspace's Ideas and Features against q.
func (x *Index) Match(ctx context.Context, ws core.ID, q core.MatchQuery) ([]core.Match, error) {
	w := x.entry(ws)
	if err := x.fresh(ctx, ws, w); err != nil {
		return nil, err
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.ix.match(q), nil
}

// Changed indexes a record just created or edited through this replica, so that the next answer here
// includes it without waiting for a refresh. A workspace not indexed yet is left alone: its first query
// reads everything.
func (x *Index) Changed(ws core.ID, r core.Record) {
	if r.Type != core.RecordIdea && r.Type != core.RecordFeature {
		return
	}
	x.mu.Lock()
	w := x.ws[ws]
	x.mu.Unlock()
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ix != nil {
		x.put(w.ix, r)
	}
}

func (x *Index) entry(ws core.ID) *wsIndex {
	now := x.opt.Now()
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.ws[ws]
	if w == nil {
		if len(x.ws) >= x.opt.MaxWorkspaces {
			x.evict()
		}
		w = &wsIndex{}
		x.ws[ws] = w
	}
	w.mu.Lock()
	w.lastUsed = now
	w.mu.Unlock()
	return w
}

// evict drops the least recently used index. x.mu is held.
func (x *Index) evict() {
	var (
		oldest core.ID
		at     time.Time
	)
	for id, w := range x.ws {
		w.mu.RLock()
		used := w.lastUsed
		w.mu.RUnlock()
		if oldest == "" || used.Before(at) {
			oldest, at = id, used
		}
	}
	delete(x.ws, oldest)
}

// backgroundTimeout bounds one background read of the store.
const backgroundTimeout = time.Minute

// fresh builds the index on first use; that request, and any that come meanwhile, wait for it. Later, an
// index older than Refresh is brought up to date, or one older than Rebuild is rebuilt, in the background:
// the request that notices answers from the index as it is, so no request pays for reading the store.
func (x *Index) fresh(ctx context.Context, ws core.ID, w *wsIndex) error {
	now := x.opt.Now()
	w.mu.RLock()
	built := w.ix != nil
	stale := now.Sub(w.readAt) >= x.opt.Refresh
	old := built && (now.Sub(w.builtAt) >= x.opt.Rebuild || w.ix.deadShare() > 0.3)
	since := w.readAt.Add(-Overlap)
	w.mu.RUnlock()
	if !built {
		return x.firstBuild(ctx, ws, w)
	}
	if !stale && !old {
		return nil
	}
	if !w.load.TryLock() {
		return nil // another request is reading already
	}
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		defer w.load.Unlock()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundTimeout)
		defer cancel()
		// A failed read leaves readAt as it was, so the next request tries again.
		if old {
			_ = x.build(ctx, ws, w)
		} else {
			_ = x.refresh(ctx, ws, w, since)
		}
	}()
	return nil
}

// firstBuild waits for the workspace's first build, starting it unless one is running. The build runs on
// after the request that started it gives up (a client gone, a deadline), so that a large workspace is
// built once rather than started again by every impatient request.
func (x *Index) firstBuild(ctx context.Context, ws core.ID, w *wsIndex) error {
	w.mu.Lock()
	if w.ix != nil {
		w.mu.Unlock()
		return nil
	}
	done := w.building
	if done == nil {
		done = make(chan struct{})
		w.building = done
		w.load.Lock()
		x.bg.Add(1)
		go func() {
			defer x.bg.Done()
			bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundTimeout)
			err := x.build(bctx, ws, w)
			cancel()
			w.mu.Lock()
			w.building, w.buildErr = nil, err
			w.mu.Unlock()
			// free before the waiters go on, or the refresh one of them starts would find it taken
			w.load.Unlock()
			close(done)
		}()
	}
	w.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("suggest: wait for the index: %w", ctx.Err())
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.ix == nil {
		return w.buildErr
	}
	return nil
}

// wait returns when no background read is running (tests).
func (x *Index) wait() { x.bg.Wait() }
