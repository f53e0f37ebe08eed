package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var queueOrderTests = map[string]func(t *testing.T, f *fixture){
	"OrderPerKey": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		a1, a2 := item(ws, "events:q", "rec-a", "a1"), item(ws, "events:q", "rec-a", "a2")
		a1.RetryFor = time.Hour
		f.enqueue(a1, a2, item(ws, "events:q", "rec-b", "b1"), item(ws, "events:q", "", "free"))
		// The same key on another queue (another subscriber) is not held back by this one.
		f.enqueue(item(ws, "events:other", "rec-a", "o1"))

		c := f.claimItems("events:q", "w", 10, time.Minute)
		equal(t, "a key's later item waits for its earlier one", bodies(c), []string{"a1", "b1", "free"})
		equal(t, "another queue's item of the same key", bodies(f.claimItems("events:other", "w", 10, time.Minute)), []string{"o1"})

		_, err := f.st.RetryItem(f.ctx, c[0], "w", "down", 300*time.Millisecond)
		noErr(t, "retry a1 shortly", err)
		equal(t, "a queued earlier item still holds back the later one", len(f.claimItems("events:q", "w", 10, time.Minute)), 0)
		time.Sleep(400 * time.Millisecond)
		again := f.claimItems("events:q", "w", 10, time.Minute)
		equal(t, "the earlier item comes again first", bodies(again), []string{"a1"})
		noErr(t, "finish a1", f.st.FinishItem(f.ctx, again[0], "w"))
		equal(t, "then the later one", bodies(f.claimItems("events:q", "w", 10, time.Minute)), []string{"a2"})
	},
	"GivenUpItemNoLongerHoldsBack": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		first := item(ws, "events:q", "rec", "1")
		first.RetryFor = time.Minute
		f.enqueue(first, item(ws, "events:q", "rec", "2"))
		c := f.claimItems("events:q", "w", 10, time.Minute)
		equal(t, "first only", bodies(c), []string{"1"})
		failed, err := f.st.RetryItem(f.ctx, c[0], "w", "gone", time.Hour)
		noErr(t, "give up", err)
		equal(t, "given up", failed, true)
		equal(t, "the next one goes", bodies(f.claimItems("events:q", "w", 10, time.Minute)), []string{"2"})
	},
	"ConcurrentClaimsKeepOrderAndShareNothing": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		const keys, perKey = 6, 8
		var items []core.QueueItem
		for i := range perKey {
			for k := range keys {
				items = append(items, item(ws, "events:q", fmt.Sprint("rec-", k), fmt.Sprintf("%d/%d", k, i)))
			}
			items = append(items, item(ws, "events:q", "", fmt.Sprint("free/", i)))
		}
		f.enqueue(items...)
		var (
			mu    sync.Mutex
			seen  = map[core.ID]int{}
			order = map[string][]string{}
		)
		parallel(4, func(w int) {
			worker := fmt.Sprint("w", w)
			for idle := 0; idle < 20; {
				its, err := f.st.ClaimItems(f.ctx, "events:q", worker, 3, time.Minute)
				if err != nil {
					t.Errorf("claim: %v", err)
					return
				}
				if len(its) == 0 {
					idle++ // the rest may be held back behind another worker's item
					time.Sleep(5 * time.Millisecond)
					continue
				}
				idle = 0
				mu.Lock()
				for _, it := range its {
					seen[it.ID]++
					order[it.Key] = append(order[it.Key], string(it.Body))
				}
				mu.Unlock()
				for _, it := range its {
					if err := f.st.FinishItem(f.ctx, it, worker); err != nil {
						t.Errorf("finish %s: %v", it.Body, err)
					}
				}
			}
		})
		equal(t, "items claimed", len(seen), len(items))
		for id, n := range seen {
			equal(t, "claims of "+string(id), n, 1)
		}
		for k := range keys {
			want := make([]string, perKey)
			for i := range perKey {
				want[i] = fmt.Sprintf("%d/%d", k, i)
			}
			equal(t, fmt.Sprint("order of rec-", k), order[fmt.Sprint("rec-", k)], want)
		}
		equal(t, "left", f.stats("events:q"), core.QueueStats{})
	},
}
