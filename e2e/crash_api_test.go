package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// apiInput is one write a client means to make: its Idempotency-Key, endpoint and body, and the id of the
// record once the daemon acknowledged it.
type apiInput struct {
	key, path, title, body string
	acked                  string
}

// post sends one create with an Idempotency-Key. A request that got no answer returns status 0.
func post(d *daemon, apiKey, path, idem, body string) (int, string) {
	req, _ := http.NewRequest("POST", d.url(path), strings.NewReader(body))
	req.Header.Set("x-api-key", apiKey)
	req.Header.Set("Content-Type", "application/json")
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	var rec struct{ ID string }
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &rec)
	return resp.StatusCode, rec.ID
}

// listTitles pages through every record of a type and returns the ids under each title.
func listTitles(t *testing.T, d *daemon, key, typ string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	next := ""
	for page := 0; page < 10000; page++ {
		q := url.Values{"record_type": {typ}, "limit": {"1000"}}
		if next != "" {
			q.Set("cursor", next)
		}
		var recs []struct{ ID, Title string }
		resp := do(t, "GET", d.url("/api/records?"+q.Encode()), key, "", &recs)
		if resp.StatusCode != 200 {
			t.Fatalf("list %s: %d", typ, resp.StatusCode)
		}
		for _, r := range recs {
			out[r.Title] = append(out[r.Title], r.ID)
		}
		if next = resp.Header.Get("X-Next-Cursor"); next == "" {
			return out
		}
	}
	t.Fatal("paging did not terminate")
	return nil
}

// kill -9 at a random moment while clients write through both create endpoints. A client that got no
// answer retries with the same Idempotency-Key after the restart, as the contract tells it to. Afterwards
// every acknowledged write is there exactly once under the id it was acknowledged with, and every write a
// client made is there exactly once.
func TestCrashDuringAPIWrites(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, storeURL string) {
		e := newEnv(t, storeURL, "")
		_, key := e.workspace("Crash API")
		trials := crashTrials(t, 20)
		var (
			mu     sync.Mutex
			inputs []*apiInput
		)
		replay := func(d *daemon) (replayed int) {
			mu.Lock()
			defer mu.Unlock()
			for _, in := range inputs {
				if in.acked != "" {
					continue
				}
				code, id := post(d, key, in.path, in.key, in.body)
				if code != 201 {
					t.Fatalf("replay of %s after restart: %d", in.key, code)
				}
				in.acked = id
				replayed++
			}
			return replayed
		}
		replayedTotal, inFlight := 0, 0
		for trial := 0; trial < trials; trial++ {
			d := e.start()
			replayedTotal += replay(d)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := 0; w < 4; w++ {
				wg.Go(func() {
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						title := fmt.Sprintf("crash %d-%d-%d", trial, w, i)
						in := &apiInput{key: "idem-" + strings.ReplaceAll(title, " ", "-"), title: title, path: "/api/records/feedback",
							body: fmt.Sprintf(`{"title":%q,"description":"the export is slow %d","customer_email":"c%d@acme-%d.com"}`, title, i, i%7, w)}
						if i%3 == 1 {
							in.path = "/api/records/idea"
							in.body = fmt.Sprintf(`{"title":%q,"description":"<p>Please add <b>dark mode</b> %d</p>"}`, title, i)
						}
						mu.Lock()
						inputs = append(inputs, in)
						mu.Unlock()
						code, id := post(d, key, in.path, in.key, in.body)
						if code == 0 {
							return // the daemon is gone: the answer is unknown, the input is replayed later
						}
						if code != 201 {
							t.Errorf("%s: %d", in.key, code)
							return
						}
						mu.Lock()
						in.acked = id
						mu.Unlock()
					}
				})
			}
			time.Sleep(jitter(50*time.Millisecond, 600*time.Millisecond))
			d.kill()
			close(stop)
			wg.Wait()
			mu.Lock()
			for _, in := range inputs {
				if in.acked == "" {
					inFlight++
				}
			}
			mu.Unlock()
		}

		d := e.start()
		replayedTotal += replay(d)
		byTitle := listTitles(t, d, key, "Feedback")
		for title, ids := range listTitles(t, d, key, "Idea") {
			byTitle[title] = append(byTitle[title], ids...)
		}
		acked := 0
		for _, in := range inputs {
			ids := byTitle[in.title]
			if len(ids) != 1 || ids[0] != in.acked {
				t.Errorf("%s: stored as %v, acknowledged as %s", in.title, ids, in.acked)
			}
			acked++
		}
		if len(byTitle) != len(inputs) {
			t.Errorf("%d titles stored for %d inputs", len(byTitle), len(inputs))
		}
		// The stored first responses survived the crashes too: a late retry gets the same record.
		for i, in := range inputs {
			if i%10 != 0 {
				continue
			}
			if code, id := post(d, key, in.path, in.key, in.body); code != 201 || id != in.acked {
				t.Errorf("late retry of %s: %d %s, want 201 %s", in.key, code, id, in.acked)
			}
		}
		figures(t, "trials=%d kills=%d inputs=%d in_flight_at_kill=%d replayed=%d lost=0 duplicates=0", trials, trials, len(inputs), inFlight, replayedTotal)
	})
}
