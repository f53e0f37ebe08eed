package storetest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var leaseTests = map[string]func(t *testing.T, f *fixture){
	"OneHolderExpiryRenewRelease": func(t *testing.T, f *fixture) {
		acquire := func(name, holder string, ttl time.Duration) bool {
			t.Helper()
			ok, err := f.st.TryAcquire(f.ctx, name, holder, ttl)
			noErr(t, "acquire", err)
			return ok
		}
		steps := []struct {
			name   string
			holder string
			ttl    time.Duration
			want   bool
		}{
			{"free lease", "a", time.Minute, true},
			{"held by another", "b", time.Minute, false},
			{"renewed by its holder", "a", 80 * time.Millisecond, true},
			{"still held", "b", time.Minute, false},
		}
		for _, s := range steps {
			equal(t, s.name, acquire("poller", s.holder, s.ttl), s.want)
		}
		equal(t, "other names are independent", acquire("csv", "b", time.Minute), true)
		time.Sleep(150 * time.Millisecond)
		equal(t, "expired lease taken over", acquire("poller", "b", time.Minute), true)
		equal(t, "old holder lost it", acquire("poller", "a", time.Minute), false)
		noErr(t, "release by a non-holder", f.st.Release(f.ctx, "poller", "a"))
		equal(t, "still b's", acquire("poller", "a", time.Minute), false)
		noErr(t, "release", f.st.Release(f.ctx, "poller", "b"))
		equal(t, "free after release", acquire("poller", "a", time.Minute), true)
	},
	"ConcurrentAcquire": func(t *testing.T, f *fixture) {
		var (
			wins atomic.Int32
			wg   sync.WaitGroup
		)
		for i := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := f.st.TryAcquire(f.ctx, "race", string(rune('a'+i)), time.Minute)
				if err != nil {
					t.Errorf("acquire: %v", err)
				}
				if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		equal(t, "exactly one holder", wins.Load(), int32(1))
	},
}
