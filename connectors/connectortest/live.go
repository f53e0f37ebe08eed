package connectortest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// Item is one piece of feedback as an outsider sends it; the kind turns it into its own input (a CSV row,
// a mail, a signed request).
type Item struct {
	Title       string
	Description string
	Email       string // the customer's address
	Name        string // the customer's name
	ExternalID  string // the sender's own id of the item: the same on every resend
}

// Answer is what a kind that answers its sender (over HTTP) said about one input.
type Answer struct {
	Saved bool   // the answer tells the sender the input is stored (created now or before)
	Text  string // status and body, for the checks and for failure messages
}

// Live is a running entry as a Feed's functions see it.
type Live struct {
	Service   *core.Service
	Workspace core.ID
	URL       string // base address of the kind's routes; "" for a kind that serves none
}

// Feed drives one entry of a kind from outside, as its senders would, so that the suite can check
// delivery, grouping, bad input, suspension and crashes without knowing the kind.
type Feed struct {
	// Entry is the entry to run; it must need no service outside the test process.
	Entry map[string]any
	// Source is the source label every record of the entry carries.
	Source string
	// Deliver hands each item to the entry as one input of the kind. attempt > 0 is the sender's
	// attempt-th resend of the same items. A kind that answers its sender returns one Answer per item (an
	// input that got no answer, because the process died, is an Answer that is not Saved); a kind that
	// fetches its input returns nil. Deliver may run outside the test's goroutine: it reports transport
	// failures in the Answer, not with t.Fatal.
	Deliver func(t testing.TB, l *Live, items []Item, attempt int) []Answer
	// Bad delivers the good items with one malformed input of the kind among them, and returns a probe
	// of the error the kind shows for it: "" until that error is visible (an answer, a failed row, a
	// message set aside), then a description of it.
	Bad func(t testing.TB, l *Live, good []Item) (shown func() string)
}

// wait is how long the suite waits for a kind to act on its input.
const wait = 30 * time.Second

// clock is the service's clock. Moving it past the time the service remembers a workspace's state lets
// a suspension, and its end, take effect at once.
type clock struct{ shift atomic.Int64 }

func (c *clock) now() time.Time { return time.Now().Add(time.Duration(c.shift.Load())) }

func (c *clock) skip() { c.shift.Add(int64(time.Minute)) }

// running is one entry of the kind running in this process against a fresh SQLite store.
type running struct {
	feed  Feed
	live  *Live
	clock *clock
	kind  string
	name  string

	mu     sync.Mutex
	faults []error // what the entry reported with Entry.Fail
}

// reported is every fault the entry reported so far.
func (r *running) reported() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.faults)
}

// start builds the case's feed entry as the daemon does, runs it until the test ends and serves its
// routes, if any, on a real HTTP server.
func start(t *testing.T, c Case) *running {
	t.Helper()
	clk := &clock{}
	live := openWorkspace(t, filepath.Join(t.TempDir(), "fb.db"), core.Options{Now: clk.now})
	feed := c.Feed(t, live.Workspace, t.TempDir())
	r := &running{feed: feed, live: live, clock: clk, kind: c.Kind}
	r.name, _ = feed.Entry["name"].(string)
	faults := func(kind, name string, err error) {
		if kind == r.kind && name == r.name {
			r.mu.Lock()
			r.faults = append(r.faults, err)
			r.mu.Unlock()
		}
	}
	set, mux := build(t, c.Kind, feed.Entry, connectors.Env{Service: live.Service, Holder: "conformance", Now: time.Now, Faults: faults})
	if mux != nil {
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		r.live.URL = srv.URL
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = set.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	return r
}

// openWorkspace opens (or creates) the SQLite store at path for the test and makes a workspace in it.
func openWorkspace(t testing.TB, path string, o core.Options) *Live {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := core.NewService(st, o)
	ws, err := svc.CreateWorkspace(ctx, "Conformance", core.PlanPro, -1)
	if err != nil {
		t.Fatal(err)
	}
	return &Live{Service: svc, Workspace: ws.ID}
}

// build makes the Set of one entry through the registry, and a mux with its routes when it has any.
func build(t testing.TB, kind string, entry map[string]any, env connectors.Env) (connectors.Set, *http.ServeMux) {
	t.Helper()
	l := logrus.New()
	l.SetOutput(io.Discard)
	env.Log = logrus.NewEntry(l)
	sets, err := connectors.BuildAll(map[string][]map[string]any{kind: {entry}}, env)
	if err != nil || len(sets) != 1 {
		t.Fatalf("build: %d sets, %v", len(sets), err)
	}
	router, ok := sets[0].(connectors.Router)
	if !ok {
		return sets[0], nil
	}
	mux := http.NewServeMux()
	router.Routes(mux)
	return sets[0], mux
}

// items makes n items with titles unique to the test, their customers spread over two company
// domains and one free-mail domain.
func items(prefix string, n int) []Item {
	domains := []string{"globex.com", "initech.com", "gmail.com"}
	out := make([]Item, n)
	for i := range out {
		out[i] = Item{
			Title:       fmt.Sprintf("%s %d: export to spreadsheet", prefix, i),
			Description: fmt.Sprintf("Item %d of %s: the export button does nothing on large reports.", i, prefix),
			Email:       fmt.Sprintf("customer%d@%s", i, domains[i%len(domains)]),
			Name:        fmt.Sprintf("Customer %d", i),
			ExternalID:  fmt.Sprintf("%s-%d", strings.ReplaceAll(prefix, " ", "-"), i),
		}
	}
	return out
}

// records lists the workspace's feedback.
func (r *running) records(t testing.TB) []core.Record {
	return listRecords(t, r.live)
}

func listRecords(t testing.TB, l *Live) []core.Record {
	t.Helper()
	p, err := l.Service.List(context.Background(), l.Workspace, core.ListRequest{RecordType: "Feedback", Limit: "1000"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Records
}

// byTitle groups records by title.
func byTitle(recs []core.Record) map[string][]core.Record {
	m := map[string][]core.Record{}
	for _, r := range recs {
		m[r.Title] = append(m[r.Title], r)
	}
	return m
}

// stored reports how many of the items have at least one record.
func stored(recs []core.Record, want []Item) int {
	m := byTitle(recs)
	n := 0
	for _, it := range want {
		if len(m[it.Title]) > 0 {
			n++
		}
	}
	return n
}

// waitStored waits until every item has a record.
func waitStored(t testing.TB, l *Live, want []Item, what string) {
	t.Helper()
	waitUntil(t, what, func() bool { return stored(listRecords(t, l), want) == len(want) })
}

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", wait, what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// exactlyOnce checks that each item is one record and that nothing else was stored.
func exactlyOnce(t testing.TB, l *Live, want []Item) {
	t.Helper()
	recs := listRecords(t, l)
	m := byTitle(recs)
	for _, it := range want {
		if n := len(m[it.Title]); n != 1 {
			t.Errorf("%q is stored %d times, want once", it.Title, n)
		}
	}
	if len(recs) != len(want) {
		titles := make([]string, 0, len(recs))
		for _, r := range recs {
			titles = append(titles, r.Title)
		}
		sort.Strings(titles)
		t.Errorf("%d records, want %d: %q", len(recs), len(want), titles)
	}
}

// acked checks that a kind that answers its sender acknowledged every item.
func acked(t testing.TB, answers []Answer, n int, what string) {
	t.Helper()
	if answers == nil {
		return
	}
	if len(answers) != n {
		t.Fatalf("%s: %d answers for %d items", what, len(answers), n)
	}
	for i, a := range answers {
		if !a.Saved {
			t.Errorf("%s: item %d not acknowledged: %s", what, i, a.Text)
		}
	}
}

// Post sends body to l.URL+path with the headers and returns the answer's status and body. A request
// that gets no answer (the process behind the URL died) returns status 0 and the error.
func Post(l *Live, path string, header http.Header, body []byte) (int, string) {
	req, err := http.NewRequest(http.MethodPost, l.URL+path, strings.NewReader(string(body)))
	if err != nil {
		return 0, err.Error()
	}
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err.Error()
	}
	return resp.StatusCode, string(b)
}

// testDelivery delivers items of two company domains and one free-mail domain, and sends them all
// again as a sender's retry: each is one record with the kind's source label, and the customers of one
// domain share a company while the free-mail customer has none.
func testDelivery(t *testing.T, c Case) {
	r := start(t, c)
	its := items("Delivery", 4) // globex, initech, gmail, globex
	acked(t, r.feed.Deliver(t, r.live, its, 0), len(its), "first delivery")
	waitStored(t, r.live, its, "every item stored")
	acked(t, r.feed.Deliver(t, r.live, its, 1), len(its), "resend")
	// A kind reads its inputs in order, so once an input sent after the resend is stored, the resend
	// has been read too.
	last := items("Delivery after resend", 1)
	acked(t, r.feed.Deliver(t, r.live, last, 0), 1, "delivery after the resend")
	waitStored(t, r.live, last, "the delivery after the resend")
	all := append(append([]Item{}, its...), last...)
	exactlyOnce(t, r.live, all)

	m := byTitle(r.records(t))
	for _, it := range all {
		recs := m[it.Title]
		if len(recs) == 0 {
			continue
		}
		rec := recs[0]
		if rec.Source != r.feed.Source {
			t.Errorf("%q has source %q, want %q", it.Title, rec.Source, r.feed.Source)
		}
		if !strings.EqualFold(rec.CustomerEmail, it.Email) {
			t.Errorf("%q has customer %q, want %q", it.Title, rec.CustomerEmail, it.Email)
		}
		if !strings.Contains(rec.Description, it.Description) {
			t.Errorf("%q has description %q, want it to hold %q", it.Title, rec.Description, it.Description)
		}
	}
	company := func(it Item) (core.ID, string) {
		if recs := m[it.Title]; len(recs) > 0 {
			return recs[0].CompanyID, recs[0].Customer
		}
		return "", ""
	}
	g1, name := company(its[0])
	g2, _ := company(its[3])
	other, _ := company(its[1])
	free, freeName := company(its[2])
	if g1 == "" || g1 != g2 || name != "Globex" {
		t.Errorf("two customers of globex.com: companies %q and %q named %q, want one named Globex", g1, g2, name)
	}
	if other == "" || other == g1 {
		t.Errorf("a customer of initech.com has company %q (globex.com's is %q)", other, g1)
	}
	if free != "" || freeName != "" {
		t.Errorf("a gmail.com customer has company %q %q, want none", free, freeName)
	}
}

// testBad delivers a malformed input among good ones: the good ones are stored, the bad one shows an
// error and leaves no record, and a later input is stored as usual.
func testBad(t *testing.T, c Case) {
	r := start(t, c)
	good := items("Around bad input", 2)
	shown := r.feed.Bad(t, r.live, good)
	var got string
	waitUntil(t, "the error of the malformed input", func() bool { got = shown(); return got != "" })
	t.Logf("the kind shows: %s", got)
	waitStored(t, r.live, good, "the good items around the malformed one")
	// A kind that counts the malformed input as a refused item shows it the kit's way, not as a fault.
	if st, ok := r.status(t); ok && st.Refused > 0 {
		if err := CheckRefused(st, r.live.Service.Faults().List()); err != nil {
			t.Error(err)
		}
	}
	last := items("After bad input", 1)
	acked(t, r.feed.Deliver(t, r.live, last, 0), 1, "delivery after the malformed input")
	waitStored(t, r.live, last, "the delivery after the malformed input")
	exactlyOnce(t, r.live, append(good, last...))
}

// testSuspended delivers to a suspended workspace: nothing is stored and the kind says why (its answer
// names the workspace; a kind that fetches reports a fault that is core.ErrWorkspaceNotFound). Once the workspace is active again the input lands,
// read again by a kind that fetches it and resent by the sender of one that answers.
func testSuspended(t *testing.T, c Case) {
	r := start(t, c)
	ctx := context.Background()
	suspend := func(v bool) {
		if _, err := r.live.Service.UpdateWorkspace(ctx, r.live.Workspace, core.WorkspaceUpdate{Suspended: &v}); err != nil {
			t.Fatal(err)
		}
		r.clock.skip()
	}
	suspend(true)
	its := items("While suspended", 2)
	answers := r.feed.Deliver(t, r.live, its, 0)
	for i, a := range answers {
		if a.Saved || !strings.Contains(strings.ToLower(a.Text), "workspace") {
			t.Errorf("item %d to a suspended workspace: answer %q, want a refusal that names the workspace", i, a.Text)
		}
	}
	if answers == nil {
		waitUntil(t, "a fault that is core.ErrWorkspaceNotFound", func() bool {
			return CheckSuspendedFault(r.reported()) == nil
		})
		t.Logf("last_error: %s", r.lastError(t))
	}
	if n := len(r.records(t)); n != 0 {
		t.Fatalf("a suspended workspace took %d records", n)
	}
	suspend(false)
	if answers != nil {
		acked(t, r.feed.Deliver(t, r.live, its, 1), len(its), "resend after the suspension")
	}
	waitStored(t, r.live, its, "the input held during the suspension")
	exactlyOnce(t, r.live, its)
}

// lastError is the entry's last_error as GET /api/connectors shows it.
func (r *running) lastError(t testing.TB) string {
	st, _ := r.status(t)
	return st.LastError
}

// status is the entry's status as GET /api/connectors shows it; false before it is written.
func (r *running) status(t testing.TB) (core.ConnectorStatus, bool) {
	t.Helper()
	sts, err := r.live.Service.Connectors(context.Background(), r.live.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if s.Name == r.name && s.Kind == r.kind {
			return s, true
		}
	}
	return core.ConnectorStatus{}, false
}
