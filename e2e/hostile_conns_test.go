package e2e

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// One client that opens more idle keep-alive connections than the whole pool (1,100 against the default
// 1,024, all from 127.0.0.1, as every test client here is) does not take the daemon down: afterwards
// /healthz and an API write from the same address answer promptly. Before, the flood filled the pool and
// every later connection waited in the listen queue until one of the idle ones timed out (minutes).
func TestIdleConnectionFlood(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "insights: {provider: \"off\"}\n")
	_, key := e.workspace("Flood")
	d := e.start()

	const flood = 1100
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	var answered, unanswered atomic.Int64
	start := time.Now()
	next := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range next {
				c, err := net.DialTimeout("tcp", d.addr, 2*time.Second)
				if err != nil {
					unanswered.Add(1)
					continue
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
				// One request, then the connection stays open and idle (a keep-alive).
				c.SetDeadline(time.Now().Add(2 * time.Second))
				if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err == nil {
					if res, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
						res.Body.Close()
						answered.Add(1)
						continue
					}
				}
				unanswered.Add(1)
			}
		})
	}
	for i := range flood {
		if time.Since(start) > 60*time.Second {
			t.Errorf("the flood took over a minute; stopped after %d connections", i)
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	floodTime := time.Since(start)

	fresh := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	t0 := time.Now()
	res, err := fresh.Get(d.url("/healthz"))
	if err != nil {
		t.Fatalf("/healthz after %d idle connections: %v", flood, err)
	}
	res.Body.Close()
	healthz := time.Since(t0)
	req, _ := http.NewRequest("POST", d.url("/api/records/feedback"), strings.NewReader(`{"title":"after the flood"}`))
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	t0 = time.Now()
	res, err = fresh.Do(req)
	if err != nil {
		t.Fatalf("an API write after %d idle connections: %v", flood, err)
	}
	res.Body.Close()
	write := time.Since(t0)
	if res.StatusCode != 201 || healthz > time.Second || write > 2*time.Second {
		t.Errorf("after the flood: write %d in %v, /healthz in %v", res.StatusCode, write, healthz)
	}
	// Every flood connection was answered: the pool made room by closing the longest-idle ones.
	if n := unanswered.Load(); n > 0 {
		t.Errorf("%d of %d flood connections got no answer within 2 s", n, flood)
	}
	figures(t, "idle_connections=%d answered=%d flood_time=%v healthz_after=%v write_after=%v shed=%v", flood, answered.Load(),
		floodTime.Round(time.Millisecond), healthz.Round(time.Millisecond), write.Round(time.Millisecond),
		metric(t, d, "feedbridge_http_connections_shed_total", `reason="idle_closed_pool_full"`))
}

// Uploads held open against a signed webhook do not grow the daemon's memory with their number: 300
// uploads of almost 1 MiB each, sent but never finished, leave its RSS within a bound far below their
// total, and once they are gone a signed delivery is created. Before, every held upload was read into
// memory before its signature was checked.
func TestHeldWebhookUploads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	ws, _ := e.workspace("Uploads")
	e.configure("", fmt.Sprintf("insights: {provider: \"off\"}\nconnectors:\n  webhook:\n    - name: crm\n      workspace: %s\n"+
		"      secret: s3cret\n      mapping: {title: title, external_id: id}\n", ws))
	d := e.start()
	before := rss(t, d)

	const held, size = 300, 1 << 20
	sig := hmac.New(sha256.New, []byte("s3cret"))
	sig.Write([]byte("never finished"))
	header := fmt.Sprintf("POST /hooks/crm HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-Signature: sha256=%s\r\n\r\n",
		size, hex.EncodeToString(sig.Sum(nil)))
	chunk := strings.Repeat("a", size-1)
	var conns []net.Conn
	var mu sync.Mutex
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var refused atomic.Int64
	var wg sync.WaitGroup
	for range held {
		c, err := net.DialTimeout("tcp", d.addr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		wg.Go(func() {
			c.SetWriteDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, header)
			// Everything but the last byte; a refused upload sees its connection close and stops.
			if _, err := io.WriteString(c, chunk); err != nil {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	time.Sleep(time.Second)
	during := rss(t, d)
	growth := during - before
	if growth > 100<<20 {
		t.Errorf("RSS grew by %d MiB with %d held uploads of 1 MiB (from %d to %d MiB)", growth>>20, held, before>>20, during>>20)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	body := `{"id":"1","title":"after the uploads"}`
	m := hmac.New(sha256.New, []byte("s3cret"))
	m.Write([]byte(body))
	var code int
	eventually(t, 10*time.Second, "a signed delivery after the held uploads", func() bool {
		req, _ := http.NewRequest("POST", d.url("/hooks/crm"), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Signature", "sha256="+hex.EncodeToString(m.Sum(nil)))
		res, err := client.Do(req)
		if err != nil {
			return false
		}
		res.Body.Close()
		code = res.StatusCode
		return code == 201
	})
	figures(t, "held_uploads=%d refused_while_sending=%d rss_before=%dMiB rss_during=%dMiB", held, refused.Load(), before>>20, during>>20)
}

// rss is the daemon's resident set size in bytes.
func rss(t *testing.T, d *daemon) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
