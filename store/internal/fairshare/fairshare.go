// Package fairshare holds what both stores use to share themselves fairly between workspaces: a gate that
// bounds how much of a store one workspace can hold at once, a cap on how long a query may run, and the
// round-robin order in which the insight queue is claimed.
package fairshare

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Gate admits at most per concurrent holders for each key (a workspace id); further callers wait their
// turn or give up when their context ends. A place held longer than free stays taken, after it is given
// back, for rest times the part of the hold beyond free, so one key whose every hold is long runs at most
// about 1/(1+rest) of the time per place: a workspace whose every search is slow gets a bounded share of
// the machine, while a quick search never makes the next one wait.
//
// A gate with readers > 0 also admits at most that many holders in all, and keeps the last of them for
// keys that are not busy (a key is busy for a while after a hold longer than free): however many busy
// workspaces there are, together they hold at most readers-1, so a workspace that searches now and then
// never queues behind the searches of tenants that search without pause.
type Gate struct {
	per     int
	rest    float64
	free    time.Duration
	readers int
	mu      sync.Mutex
	slots   map[string]*slot
	active  int                  // holders in all (with readers > 0)
	busy    map[string]time.Time // key → until when it counts as busy
	changed chan struct{}        // closed and replaced whenever a holder leaves
}

type slot struct {
	ch    chan struct{}
	users int // holders and waiters; the slot is dropped when none are left
}

// busyFor is how long a key counts as busy after a long hold ends (beyond its rest): long enough to span
// the gap between one tenant's back-to-back searches, short enough that a tenant that stopped is soon
// treated as new again.
const busyFor = time.Second

// NewGate makes a gate of per holders per key (at least one) that rest after each hold for rest times
// its length beyond free (rest 0: not at all), with no bound on the holders in all.
func NewGate(per int, rest float64, free time.Duration) *Gate {
	return &Gate{per: max(per, 1), rest: max(rest, 0), free: max(free, 0), slots: map[string]*slot{},
		busy: map[string]time.Time{}, changed: make(chan struct{})}
}

// Searches: a workspace runs one search at a time, and a search that ran longer than searchFree keeps its
// turn resting for as long again as it ran beyond that. A workspace that searches without pause, every
// search slow, keeps at most about half of one reader busy; one whose searches are quick, or whose user
// pauses between them, never waits for a rest.
const (
	searchRest = 1.0
	searchFree = 50 * time.Millisecond
)

// NewSignalGate is the gate both stores put before every signals aggregation, keyed by workspace: one at a
// time per workspace, so that a dashboard polled with many distinct windows costs its workspace one
// reader, not all of them. Unlike searches it does not rest after a slow one: one dashboard's requests
// come one after the other, and a rest would double each one's wait.
func NewSignalGate() *Gate { return NewGate(1, 0, 0) }

// NewSearchGate is the gate both stores put before every search, keyed by workspace, for a store with
// readers connections that searches may use at once (at least two, so that one can be kept back).
func NewSearchGate(readers int) *Gate {
	g := NewGate(1, searchRest, searchFree)
	g.readers = max(readers, 2)
	return g
}

// Enter waits for one of key's places and returns the function that gives it back; it fails with the
// context's error when ctx ends first.
func (g *Gate) Enter(ctx context.Context, key string) (func(), error) {
	g.mu.Lock()
	s := g.slots[key]
	if s == nil {
		s = &slot{ch: make(chan struct{}, g.per)}
		g.slots[key] = s
	}
	s.users++
	g.mu.Unlock()
	select {
	case s.ch <- struct{}{}:
	case <-ctx.Done():
		g.leave(key, s)
		return nil, ctx.Err()
	}
	if err := g.admit(ctx, key); err != nil {
		<-s.ch
		g.leave(key, s)
		return nil, err
	}
	start := time.Now()
	var once sync.Once
	return func() {
		once.Do(func() {
			held := time.Since(start)
			g.release(key, held)
			free := func() { <-s.ch; g.leave(key, s) }
			if pause := time.Duration(float64(held-g.free) * g.rest); pause > time.Millisecond {
				time.AfterFunc(pause, free)
			} else {
				free()
			}
		})
	}, nil
}

// admit waits until key may take one of the readers: any but the last, or the last too when key is not
// busy.
func (g *Gate) admit(ctx context.Context, key string) error {
	if g.readers <= 0 {
		return nil
	}
	for {
		g.mu.Lock()
		limit := g.readers - 1
		if until, ok := g.busy[key]; !ok || !time.Now().Before(until) {
			delete(g.busy, key)
			limit = g.readers
		}
		if g.active < limit {
			g.active++
			g.mu.Unlock()
			return nil
		}
		changed := g.changed
		g.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives a reader back and marks key busy after a long hold.
func (g *Gate) release(key string, held time.Duration) {
	if g.readers <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	now := time.Now()
	if held > g.free {
		g.busy[key] = now.Add(time.Duration(float64(held-g.free)*g.rest) + busyFor)
	}
	if len(g.busy) > 64 {
		for k, until := range g.busy {
			if !now.Before(until) {
				delete(g.busy, k)
			}
		}
	}
	close(g.changed)
	g.changed = make(chan struct{})
}

func (g *Gate) leave(key string, s *slot) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.users--; s.users == 0 {
		delete(g.slots, key)
	}
}

// ErrTooLong is the cause of a context that Cap ended: the query ran past the store's own limit.
var ErrTooLong = errors.New("query ran past the store's time limit")

// Cap gives ctx a deadline no later than limit from now (a caller's earlier deadline stays); when the cap
// is what ends it, context.Cause says ErrTooLong. The returned function releases the timer and must be
// called.
func Cap(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, limit, ErrTooLong)
}

// Ended is ctx's error once its deadline has passed, even when the timer that ends it has not run yet
// (on a busy machine it can run late): a read that finished after its deadline then ends as an
// interrupted one would.
func Ended(ctx context.Context) error {
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		<-ctx.Done() // due now: its timer is about to run
	}
	return ctx.Err()
}

// Capped reports whether err came from a context that Cap ended, rather than from the caller's own.
func Capped(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(context.Cause(ctx), ErrTooLong)
}

// Err is err as a store reports it: a query that Cap ended is core.ErrUnavailable (the caller may retry
// later), anything else is unchanged.
func Err(ctx context.Context, err error) error {
	if Capped(ctx, err) {
		return fmt.Errorf("%w: %w", core.ErrUnavailable, ErrTooLong)
	}
	return err
}

// Rotation lists up to k keys in round-robin order: those that next finds after cursor, then, wrapping
// around, those from the start. next returns the smallest key above its argument, or "" when there is
// none; keys are never "".
func Rotation(cursor string, k int, next func(after string) (string, error)) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	at, wrapped := cursor, cursor == ""
	for len(out) < k {
		key, err := next(at)
		if err != nil {
			return nil, err
		}
		if key == "" {
			if wrapped {
				break
			}
			at, wrapped = "", true
			continue
		}
		if seen[key] {
			break
		}
		seen[key] = true
		out = append(out, key)
		at = key
	}
	return out, nil
}

// Interleave deals up to n items from the lists in turn: the first of each, then the second of each, and
// so on; a list that runs out drops out of the turn.
func Interleave[T any](lists [][]T, n int) []T {
	var out []T
	for round := 0; len(out) < n; round++ {
		took := false
		for _, l := range lists {
			if round < len(l) && len(out) < n {
				out = append(out, l[round])
				took = true
			}
		}
		if !took {
			break
		}
	}
	return out
}

// SortJobs orders claimed jobs as the workers should start them: by due time, then id.
func SortJobs(jobs []core.InsightJob) {
	sort.Slice(jobs, func(i, j int) bool {
		if !jobs[i].RunAt.Equal(jobs[j].RunAt) {
			return jobs[i].RunAt.Before(jobs[j].RunAt)
		}
		return jobs[i].ID < jobs[j].ID
	})
}
