package e2e

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The README's run command: serve --demo on an empty store prints a working key once.
func TestServeDemo(t *testing.T) {
	e := newEnv(t, "", "")
	d := e.start("--demo")
	key := d.waitStdout(t, regexp.MustCompile(`fbk_[0-9A-Za-z]{40}`))
	if key == "" {
		t.Fatalf("no key printed by --demo: %q", d.stdout.String())
	}
	var v struct {
		Success     bool   `json:"success"`
		CompanyName string `json:"company_name"`
	}
	if r := do(t, "GET", d.url("/api/records/verify"), key, "", &v); r.StatusCode != 200 || !v.Success || v.CompanyName == "" {
		t.Fatalf("verify with the demo key: %d %+v", r.StatusCode, v)
	}
	var tags []map[string]string
	if r := do(t, "GET", d.url("/api/records/tags"), key, "", &tags); r.StatusCode != 200 || len(tags) == 0 {
		t.Fatalf("demo workspace has no tags: %d %v", r.StatusCode, tags)
	}
	// It also prints a sign-in link for the demo admin, whose page asks for a password.
	link := d.waitStdout(t, regexp.MustCompile(`/signin/link\?token=[A-Za-z0-9_-]{43}`))
	if link == "" {
		t.Fatalf("no sign-in link printed by --demo: %q", d.stdout.String())
	}
	res, err := client.Get(d.url(link))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "demo@example.com") || !strings.Contains(string(page), "Password") {
		t.Fatalf("the demo sign-in link: %d %s", res.StatusCode, page)
	}
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit code after SIGTERM: %d", code)
	}
	// A second --demo start on the same store seeds nothing and prints no key.
	d2 := e.start("--demo")
	if d2.waitStdout(t, regexp.MustCompile(`nothing seeded`)) == "" || regexp.MustCompile(`fbk_`).MatchString(d2.stdout.String()) {
		t.Fatalf("second --demo printed a key again: %q", d2.stdout.String())
	}
}

// SIGTERM while requests are in flight: every request that got an answer is stored exactly once, and none
// is cut off with a connection error while the server drains.
func TestGracefulShutdownKeepsAcknowledgedWrites(t *testing.T) {
	e := newEnv(t, "", "")
	_, key := e.workspace("Shutdown")
	d := e.start()
	var (
		acked   sync.Map
		okCount atomic.Int64
		wg      sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var rec struct{ ID string }
				body := fmt.Sprintf(`{"title":"shutdown %d-%d"}`, w, i)
				req, _ := http.NewRequest("POST", d.url("/api/records/feedback"), stringsReader(body))
				req.Header.Set("x-api-key", key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					return // the listener is closed: no answer, nothing acknowledged
				}
				if resp.StatusCode == 201 && decode(resp, &rec) == nil {
					acked.Store(rec.ID, true)
					okCount.Add(1)
				} else {
					resp.Body.Close()
				}
			}
		}(w)
	}
	time.Sleep(700 * time.Millisecond)
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit code after SIGTERM: %d", code)
	}
	close(stop)
	wg.Wait()
	if okCount.Load() == 0 {
		t.Fatal("no request was acknowledged before shutdown")
	}
	d2 := e.start()
	seen := listAll(t, d2, key, "Feedback")
	for id := range seen {
		acked.Delete(id)
	}
	missing := 0
	acked.Range(func(any, any) bool { missing++; return true })
	if missing > 0 {
		t.Fatalf("%d acknowledged records missing after restart (of %d)", missing, okCount.Load())
	}
	t.Logf("%d acknowledged writes, all present after restart", okCount.Load())
}
