package insights

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// A slow extraction (an LLM call that takes many times the claim's lease) keeps its job: the heartbeat
// renews the claim, so a second replica polling all along never takes the job, and it runs once.
func TestSlowExtractionKeepsItsClaim(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		e := newQueueEnv(t, open, 0, nil)
		rec := e.feedback("slow", "The export is broken again.")
		slow := &countingExtractor{delay: 1500 * time.Millisecond, started: make(chan struct{}, 1)}
		cfg := fastConfig(prometheus.NewRegistry())
		cfg.Lease, cfg.Workers = 300*time.Millisecond, 1
		p, err := NewPool(e.st, slow, cfg)
		if err != nil {
			t.Fatal(err)
		}
		start(t, p)
		<-slow.started
		other := &countingExtractor{}
		cfg2 := fastConfig(prometheus.NewRegistry())
		cfg2.Lease = 300 * time.Millisecond
		p2, err := NewPool(e.st, other, cfg2)
		if err != nil {
			t.Fatal(err)
		}
		start(t, p2)
		waitFor(t, "the slow job done", func() bool { return len(e.insights(rec)) > 0 })
		if n := other.count("slow"); n != 0 {
			t.Errorf("the second replica ran the held job %d times", n)
		}
		if n := slow.count("slow"); n != 1 {
			t.Errorf("the slow extraction ran %d times, want 1", n)
		}
	})
}
