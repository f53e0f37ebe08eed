package csvimport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

func tlsFor(srv *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: pool}
}

// urlEntry builds an entry fetching path from srv; change adjusts the config.
func (e *testEnv) urlEntry(t testing.TB, srv *httptest.Server, path string, change func(c *Config)) *entry {
	t.Helper()
	c := Config{Name: "crm-url", Workspace: string(e.ws), Schedule: "@every 1s", URL: srv.URL + path,
		ArchiveDir: filepath.Join(e.dir, "done"), AllowPrivate: true}
	if change != nil {
		change(&c)
	}
	return e.newEntry(t, c, tlsFor(srv))
}

func TestURLSource(t *testing.T) {
	e := newTestEnv(t)
	secret := e.write(t, "secret", "Bearer s3cret\n")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.URL.Query().Get("token") != "t0ken" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/csv")
		_, _ = w.Write([]byte("Ticket ID,Subject\n1,From the CRM\n2,\n3,Another\n"))
	}))
	defer srv.Close()
	en := e.urlEntry(t, srv, "/exports/daily.csv?token=t0ken", func(c *Config) {
		c.Headers = map[string]connectors.Secret{"Authorization": connectors.Secret("file:" + secret)}
		c.Mapping = map[string]string{"external_id": "Ticket ID"}
	})
	en.runOnce(context.Background())

	runs, err := e.svc.ImportRuns(context.Background(), e.ws)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v (%v)", runs, err)
	}
	r := runs[0]
	if r.Status != core.ImportSucceeded || r.Created != 2 || r.Failed != 1 || r.File != srv.URL+"/exports/daily.csv" {
		t.Errorf("run %+v", r)
	}
	files := listDir(t, filepath.Join(e.dir, "done"))
	if len(files) != 1 || !strings.HasPrefix(files[0], "daily-") || !strings.HasSuffix(files[0], ".errors.csv") {
		t.Errorf("archive holds %q, want one daily-<time>.errors.csv", files)
	}
	en.runOnce(context.Background()) // the same export again
	if runs, _ := e.svc.ImportRuns(context.Background(), e.ws); runs[0].Created != 0 || runs[0].Duplicates != 2 {
		t.Errorf("second run %+v", runs[0])
	}
}

func TestURLSourceFailures(t *testing.T) {
	big := strings.Repeat("title\n", 100)
	tests := []struct {
		name    string
		path    string
		change  func(c *Config)
		handler http.HandlerFunc
		want    string
		noHit   bool
	}{
		{"loopback refused", "/a.csv?token=t0ken", func(c *Config) { c.AllowPrivate = false }, nil,
			"refusing to connect to 127.0.0.1", true},
		{"a name resolving to loopback is refused when dialled", "/a.csv", func(c *Config) {
			c.AllowPrivate = false
			c.URL = strings.Replace(c.URL, "127.0.0.1", "localhost", 1)
		}, nil, "refusing to connect to", true},
		{"status", "/a.csv", nil, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
			"server answered 404 Not Found", false},
		{"declared size over the cap", "/a.csv", func(c *Config) { c.MaxBytes = 100 }, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			_, _ = w.Write([]byte(big))
		}, "over max_bytes", false},
		{"streamed size over the cap", "/a.csv", func(c *Config) { c.MaxBytes = 100 }, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(big[:50]))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte(big[50:]))
		}, "over max_bytes", false},
		{"idle server", "/a.csv", func(c *Config) { c.Timeout = 300 * time.Millisecond }, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("title\nfirst\n"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, "no data received within the timeout", false},
		{"redirect to another host", "/a.csv", nil, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/a.csv", http.StatusFound)
		}, "redirect to another host", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			var hits atomic.Int32
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				if tt.handler != nil {
					tt.handler(w, r)
				}
			}))
			defer srv.Close()
			en := e.urlEntry(t, srv, tt.path, func(c *Config) {
				c.Headers = map[string]connectors.Secret{"X-Api-Key": "s3cret"}
				if tt.change != nil {
					tt.change(c)
				}
			})
			en.runOnce(context.Background())
			runs, _ := e.svc.ImportRuns(context.Background(), e.ws)
			if len(runs) != 1 || runs[0].Status != core.ImportFailed || !strings.Contains(runs[0].Error, tt.want) {
				t.Fatalf("runs %+v, want one failed with %q", runs, tt.want)
			}
			st := e.status(t, "crm-url")
			if st.State != string(connectors.StateError) || !strings.Contains(st.LastError, tt.want) {
				t.Errorf("status %+v", st)
			}
			for _, text := range []string{runs[0].Error, st.LastError, e.allLogs()} {
				if strings.Contains(text, "s3cret") || strings.Contains(text, "t0ken") {
					t.Errorf("a secret leaked: %q", text)
				}
			}
			if tt.noHit && hits.Load() != 0 {
				t.Errorf("the server was reached %d times", hits.Load())
			}
		})
	}
}

func (e *testEnv) allLogs() string {
	var sb strings.Builder
	for _, en := range e.hook.AllEntries() {
		s, _ := en.String()
		sb.WriteString(s)
	}
	return sb.String()
}

// A run that outlasts its interval is not started again while it goes, and of two replicas sharing the
// store only the lease holder imports.
func TestScheduleNeverOverlaps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a schedule for several seconds")
	}
	forEachBackend(t, testScheduleNeverOverlaps)
}

func testScheduleNeverOverlaps(t *testing.T, e *testEnv) {
	var active, most, hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := active.Add(1)
		defer active.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		hits.Add(1)
		time.Sleep(1500 * time.Millisecond) // longer than the 1 s interval
		_, _ = w.Write([]byte("title\nslow\n"))
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, holder := range []string{"replica-a", "replica-b"} {
		en := e.urlEntry(t, srv, "/slow.csv", nil)
		en.env = e.connEnv(holder)
		s := &set{env: e.connEnv(holder), entries: []*entry{en}}
		wg.Go(func() { _ = s.Run(ctx) })
	}
	deadline := time.Now().Add(20 * time.Second)
	for hits.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	if hits.Load() < 3 || most.Load() != 1 {
		t.Fatalf("%d fetches, at most %d at once; want at least 3, one at a time", hits.Load(), most.Load())
	}
	runs, _ := e.svc.ImportRuns(context.Background(), e.ws)
	for i := 0; i+1 < len(runs); i++ { // newest first
		if runs[i].StartedAt.Before(runs[i+1].FinishedAt) {
			t.Errorf("run %s started before run %s finished", runs[i].ID, runs[i+1].ID)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "done")); err == nil {
		t.Error("an errors file was written for clean runs")
	}
}
