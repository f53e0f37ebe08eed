package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Oversize and malformed requests get a clear 4xx in the error shape and never hurt the daemon: bodies over
// 1 MiB (declared or chunked), fields over their limits, deeply nested JSON, huge headers and query strings.
func TestHostileRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "insights: {provider: \"off\"}\n")
	_, key := e.workspace("Hostile")
	d := e.start()
	big := strings.Repeat("x", 1<<20)
	cases := []struct {
		name    string
		path    string
		body    io.Reader
		chunked bool
		header  map[string]string
		want    int
	}{
		{"body over 1 MiB", "/api/records/feedback", strings.NewReader(`{"title":"t","description":"` + big + `"}`), false, nil, 413},
		{"chunked body over 1 MiB", "/api/records/idea", strings.NewReader(`{"title":"t","description":"` + big + `"}`), true, nil, 413},
		{"endless chunked body", "/api/records/feedback", io.LimitReader(zeros{}, 64<<20), true, nil, 413},
		{"title over 500", "/api/records/feedback", strings.NewReader(`{"title":"` + strings.Repeat("t", 501) + `"}`), false, nil, 400},
		{"description over 100000", "/api/records/idea", strings.NewReader(`{"title":"t","description":"` + strings.Repeat("d", 100001) + `"}`), false, nil, 400},
		{"customer_name over 200", "/api/records/feedback", strings.NewReader(`{"title":"t","customer_email":"a@b.example","customer_name":"` + strings.Repeat("n", 201) + `"}`), false, nil, 400},
		{"51 tags", "/api/records/idea", strings.NewReader(`{"title":"t","tags":[` + strings.TrimSuffix(strings.Repeat(`"6b02aa68e620474649935e43",`, 51), ",") + `]}`), false, nil, 400},
		{"nested arrays", "/api/records/feedback", strings.NewReader(`{"title":` + strings.Repeat("[", 400000) + `}`), false, nil, 400},
		{"nested objects", "/api/records/idea", strings.NewReader(strings.Repeat(`{"title":`, 100000)), false, nil, 400},
		{"invalid UTF-8 and NUL", "/api/records/feedback", strings.NewReader("{\"title\":\"a\xff\xfe\x00b\"}"), false, nil, 0},
		{"huge header", "/api/records/feedback", strings.NewReader(`{"title":"t"}`), false, map[string]string{"X-Junk": strings.Repeat("h", 2<<20)}, 431},
		{"header over 64 KiB", "/api/records/feedback", strings.NewReader(`{"title":"t"}`), false, map[string]string{"X-Junk": strings.Repeat("h", 96<<10)}, 431},
		{"search over 1000 characters", "/api/records?search=" + strings.Repeat("q", 1001), nil, false, nil, 400},
		{"60 KB search", "/api/records?search=" + strings.Repeat("q", 60000), nil, false, nil, 400},
		// The request line counts against the header bound (http.max_header_bytes, 64 KiB).
		{"100 KB query string", "/api/records?search=" + strings.Repeat("q", 100000), nil, false, nil, 431},
		{"1 MiB query string", "/api/records?search=" + strings.Repeat("q", 1<<20), nil, false, nil, 0},
		{"duplicate JSON key", "/api/records/feedback", strings.NewReader(`{"title":"first","title":"second"}`), false, nil, 400},
		{"duplicate nested JSON key", "/api/records/idea", strings.NewReader(`{"title":"t","tags":[],"description":"a","description":"b"}`), false, nil, 400},
		{"many query params", "/api/records?" + strings.Repeat("tags=6b02aa68e620474649935e43&", 20000), nil, false, nil, 0},
	}
	answered := 0
	for _, c := range cases {
		method := "POST"
		if c.body == nil {
			method = "GET"
		}
		req, _ := http.NewRequest(method, d.url(c.path), c.body)
		if c.chunked {
			req.ContentLength = -1
			req.Body = io.NopCloser(req.Body)
		}
		req.Header.Set("x-api-key", key)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: no answer: %v", c.name, err)
			continue
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		answered++
		switch {
		case c.want != 0 && resp.StatusCode != c.want:
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, data, c.want)
		case resp.StatusCode >= 500:
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, data)
		case resp.StatusCode >= 400 && resp.StatusCode != 431 && !strings.Contains(string(data), `"success":false`):
			t.Errorf("%s: %d without the error shape: %s", c.name, resp.StatusCode, data)
		}
	}
	if code := status(t, "GET", d.url("/healthz"), "", ""); code != 200 {
		t.Fatalf("/healthz after hostile requests: %d", code)
	}
	if code, _ := post(d, key, "/api/records/feedback", "", `{"title":"still fine"}`); code != 201 {
		t.Fatalf("a normal write after hostile requests: %d", code)
	}
	figures(t, "inputs=%d answered=%d crashes=0", len(cases), answered)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// The server's read-header and read timeouts are set by default, and they cut slow clients off: 200
// slowloris connections that trickle their headers, and clients that trickle a body, are closed within
// the configured timeouts while ordinary requests keep being answered quickly.
func TestSlowClients(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	// The defaults are on without any configuration.
	show := e.cli("config", "show")
	for _, want := range []string{"read_header_timeout: 10s", "read_timeout: 30s"} {
		if !strings.Contains(show, want) {
			t.Errorf("config show lacks the default %q:\n%s", want, show)
		}
	}
	_, key := e.workspace("Slow")
	cfg := fmt.Sprintf("http:\n  listen: 127.0.0.1:0\n  read_header_timeout: 1s\n  read_timeout: 2s\n  rate_limit: {per_second: 10000, burst: 10000}\n"+
		"store:\n  url: sqlite://%s/fb.db\nlog: {level: info, format: json}\ninsights: {provider: \"off\"}\n", e.dir)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d := e.start()

	type result struct {
		cut time.Duration
		err error
	}
	trickle := func(prefix string, every time.Duration, out chan<- result) {
		start := time.Now()
		c, err := net.Dial("tcp", d.addr)
		if err != nil {
			out <- result{err: err}
			return
		}
		defer c.Close()
		if _, err := io.WriteString(c, prefix); err != nil {
			out <- result{err: err}
			return
		}
		// Read in the background: the server answers (408/400) or just closes; either way the
		// connection ends.
		done := make(chan struct{})
		go func() {
			_, _ = io.Copy(io.Discard, bufio.NewReader(c))
			close(done)
		}()
		for i := 0; ; i++ {
			select {
			case <-done:
				out <- result{cut: time.Since(start)}
				return
			case <-time.After(every):
			}
			if _, err := c.Write([]byte("X")); err != nil {
				<-done
				out <- result{cut: time.Since(start)}
				return
			}
			if time.Since(start) > 20*time.Second {
				out <- result{err: fmt.Errorf("still open after %v", time.Since(start))}
				return
			}
		}
	}
	const loris = 200
	results := make(chan result, loris+20)
	for i := 0; i < loris; i++ {
		go trickle("GET /api/records HTTP/1.1\r\nHost: x\r\nX-Slow: ", 300*time.Millisecond, results)
	}
	body := fmt.Sprintf("POST /api/records/feedback HTTP/1.1\r\nHost: x\r\nx-api-key: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"title\":\"", key)
	for i := 0; i < 20; i++ {
		go trickle(body, 300*time.Millisecond, results)
	}

	// Meanwhile ordinary clients are served.
	var served atomic.Int64
	var slowest atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Go(func() {
			for i := 0; i < 10; i++ {
				t0 := time.Now()
				if code, _ := post(d, key, "/api/records/feedback", "", fmt.Sprintf(`{"title":"during slowloris %d-%d"}`, w, i)); code == 201 {
					served.Add(1)
				}
				if el := time.Since(t0); int64(el) > slowest.Load() {
					slowest.Store(int64(el))
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	var headerCut, bodyCut time.Duration
	for i := 0; i < loris+20; i++ {
		r := <-results
		if r.err != nil {
			t.Errorf("slow client: %v", r.err)
			continue
		}
		if i < loris {
			headerCut = max(headerCut, r.cut)
		} else {
			bodyCut = max(bodyCut, r.cut)
		}
	}
	if headerCut > 4*time.Second || bodyCut > 5*time.Second {
		t.Errorf("slow clients held connections for up to %v (headers) and %v (body); timeouts are 1s and 2s", headerCut, bodyCut)
	}
	if served.Load() != 40 || time.Duration(slowest.Load()) > 2*time.Second {
		t.Errorf("ordinary clients during the attack: %d of 40 served, slowest %v", served.Load(), time.Duration(slowest.Load()))
	}
	if n := db(e).int(t, "SELECT count(*) FROM records WHERE title = ''"); n != 0 {
		t.Errorf("%d half-sent bodies were stored", n)
	}
	figures(t, "slowloris_connections=%d slow_bodies=20 longest_held=%v ordinary_served=%d/40 slowest_ordinary=%v",
		loris, max(headerCut, bodyCut).Round(10*time.Millisecond), served.Load(), time.Duration(slowest.Load()).Round(time.Millisecond))
}

func db(e *env) *inspector { return e.inspect("") }
