package email

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// fixture is a real SQLite-backed service with one workspace, and the log and metrics of the connector.
type fixture struct {
	svc    *core.Service
	store  *sqlite.Store
	ws     core.ID
	reg    *prometheus.Registry
	logs   *syncBuffer
	holder string // lease holder identity; random when empty
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "feedbridge.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Example", core.PlanPro, -1)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{svc: svc, store: st, ws: ws.ID, reg: prometheus.NewRegistry(), logs: &syncBuffer{}}
}

// entryConfig is a connector entry for the target, as it would appear in the YAML file.
func (fx *fixture) entryConfig(tg *imapTarget, extra map[string]any) map[string]any {
	e := map[string]any{
		"name": "support-inbox", "workspace": string(fx.ws), "server": tg.addr, "security": "none",
		"username": tg.user, "password": tg.pass, "mailbox": tg.box("Feedback"),
		"processed_mailbox": tg.box("Processed"), "failed_mailbox": tg.box("Failed"),
		"internal_domains": []any{"example.com"}, "poll_interval": "200ms",
	}
	for k, v := range extra {
		if v == nil {
			delete(e, k)
		} else {
			e[k] = v
		}
	}
	return e
}

// build makes the connector Set as the daemon would, with fast backoff for tests.
func (fx *fixture) build(t testing.TB, entries ...map[string]any) *set {
	t.Helper()
	l := logrus.New()
	l.SetOutput(fx.logs)
	l.SetLevel(logrus.DebugLevel)
	holder := fx.holder
	if holder == "" {
		holder = "test-" + randomHex(3)
	}
	s, err := Build(entries, connectors.Env{
		Service: fx.svc, Log: logrus.NewEntry(l), Metrics: fx.reg, Holder: holder,
	})
	if err != nil {
		t.Fatal(err)
	}
	st := s.(*set)
	for _, e := range st.entries {
		e.backoff = connectors.Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond}
	}
	return st
}

// run starts the Set; the returned func stops it and waits until it has returned.
func run(t testing.TB, s *set) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("connector did not stop within 10s")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// records lists the workspace's feedback records, oldest first.
func (fx *fixture) records(t testing.TB) []core.Record {
	t.Helper()
	page, err := fx.svc.List(context.Background(), fx.ws, core.ListRequest{RecordType: "Feedback", Sort: "asc", Limit: "1000"})
	if err != nil {
		t.Fatal(err)
	}
	return page.Records
}

func (fx *fixture) checkpoint(t testing.TB, name string) string {
	t.Helper()
	v, err := fx.svc.Checkpoint(context.Background(), fx.ws, name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (fx *fixture) status(t testing.TB) core.ConnectorStatus {
	t.Helper()
	sts, err := fx.svc.Connectors(context.Background(), fx.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if s.Name == "support-inbox" {
			return s
		}
	}
	return core.ConnectorStatus{}
}

// counter reads one series of the connector's metrics.
func (fx *fixture) counter(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := fx.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metric:
		for _, m := range mf.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				found := false
				for _, lp := range m.GetLabel() {
					if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
						found = true
					}
				}
				if !found {
					continue metric
				}
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// corpus reads golden messages by name.
func corpus(t testing.TB, names ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, n := range names {
		raw, err := os.ReadFile(filepath.Join("testdata", n+".eml"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// simpleMessage is a small direct customer message with a unique Message-ID.
func simpleMessage(i int, subject string) []byte {
	return []byte(fmt.Sprintf("From: Customer %d <c%d@customer-%d.com>\r\nTo: feedback@example.com\r\n"+
		"Subject: %s\r\nDate: Mon, 3 Nov 2026 10:00:00 +0000\r\nMessage-ID: <msg-%d-%s@customer.com>\r\n"+
		"Content-Type: text/plain; charset=utf-8\r\n\r\nFeedback number %d: the export is slow.\r\n",
		i, i, i%7, subject, i, subject, i))
}

// syncBuffer is a log sink that tests read while the connector writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) contains(sub string) bool { return strings.Contains(s.String(), sub) }

func newRegistry() *prometheus.Registry { return prometheus.NewRegistry() }

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
