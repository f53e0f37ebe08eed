package daemon

import (
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// BenchmarkConnPool measures what the pool adds to a request: 8 keep-alive clients against a handler that
// does nothing, once on a plain listener and once behind the pool (its listener, ConnState hook, connection
// context and reserve guard). The two alternate in blocks of 400 requests so that both see the same
// machine noise; "pool/plain" is the ratio of their request rates (1 means no cost). A create costs far
// more than this handler, so the pool's share of a create is smaller still.
func BenchmarkConnPool(b *testing.B) {
	const clients, block = 8, 400
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	serve := func(withPool bool) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: ok}
		if withPool {
			pool, err := newConnPool(1024, 256, nil)
			if err != nil {
				b.Fatal(err)
			}
			ln = &poolListener{Listener: ln, pool: pool}
			srv = &http.Server{Handler: reserveGuard(ok), ConnState: pool.track, ConnContext: connContext}
		}
		go srv.Serve(ln)
		b.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String() + "/"
	}
	urls := map[string]string{"plain": serve(false), "pool": serve(true)}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	run := func(url string) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for range block / clients {
					res, err := client.Get(url)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	var spent = map[string]time.Duration{}
	for b.Loop() {
		for _, arm := range []string{"plain", "pool"} {
			spent[arm] += run(urls[arm])
		}
	}
	n := float64(b.N * block)
	for _, arm := range []string{"plain", "pool"} {
		b.ReportMetric(n/spent[arm].Seconds(), arm+"-req/s")
	}
	b.ReportMetric(spent["plain"].Seconds()/spent["pool"].Seconds(), "pool/plain")
}
