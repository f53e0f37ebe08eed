package api

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// BenchmarkPatchStatus compares PATCH /api/records/{id} of a status through the whole server (auth, strict
// decoding, the service's read, validation and diff, the store's versioned UPDATE with its history entry,
// the record read back with its links) with a bare net/http handler that decodes the same body and runs
// one UPDATE … RETURNING on the same schema in another database of the same kind: another SQLite file, or
// another PostgreSQL schema on the same server (with FEEDBRIDGE_TEST_POSTGRES_URL set). Each request
// changes the status, so neither arm answers a no-op. The two alternate in blocks of 50 requests, four in
// flight; ratio = API throughput / bare throughput, and each arm's process CPU per request beside it.
//
//	go test -run '^$' -bench PatchStatus -benchtime 20x ./api/
func BenchmarkPatchStatus(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		dir := b.TempDir()
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, "api.db"))
		must(b, err)
		defer st.Close()
		bare, bareWS := openBare(b, filepath.Join(dir, "bare.db"))
		defer bare.Close()
		benchPatchStatus(b, st, bareSQLite{bare, bareWS})
	})
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(pgtest.EnvURL) == "" {
			b.Skip(pgtest.EnvURL + " is not set")
		}
		bare := pgtest.Open(b)
		ws, err := core.NewService(bare, core.Options{}).CreateWorkspace(context.Background(), "Bare", core.PlanBusiness, 0)
		must(b, err)
		benchPatchStatus(b, pgtest.Open(b), barePostgres{bare.Pool(), ws.ID})
	})
}

// bareStore is the bare arm's database: it adds an Idea and changes a status in one statement.
type bareStore interface {
	insert(ctx context.Context, id core.ID) error
	setStatus(ctx context.Context, id, status string) (barePatched, error)
}

type barePatched struct {
	ID, Title, Status string
	UpdatedAt         int64
}

type bareSQLite struct {
	db *sql.DB
	ws core.ID
}

func (s bareSQLite) insert(ctx context.Context, id core.ID) error {
	now := time.Now().UnixMilli()
	_, err := s.db.ExecContext(ctx, `INSERT INTO records(id, workspace_id, type, title, search_text, status, source, created_at, updated_at)
		VALUES (?, ?, 'Idea', 'Idea', 'idea', 'Triage', 'API', ?, ?)`, id, s.ws, now, now)
	return err
}

func (s bareSQLite) setStatus(ctx context.Context, id, status string) (out barePatched, err error) {
	err = s.db.QueryRowContext(ctx, `UPDATE records SET status = ?, updated_at = ?, version = version + 1
		WHERE workspace_id = ? AND id = ? RETURNING id, title, status, updated_at`,
		status, time.Now().UnixMilli(), s.ws, id).Scan(&out.ID, &out.Title, &out.Status, &out.UpdatedAt)
	return out, err
}

type barePostgres struct {
	pool *pgxpool.Pool
	ws   core.ID
}

func (s barePostgres) insert(ctx context.Context, id core.ID) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO records(id, workspace_id, type, title, search_text, status, source, created_at, updated_at)
		VALUES ($1, $2, 'Idea', 'Idea', 'idea', 'Triage', 'API', now(), now())`, id, s.ws)
	return err
}

// create is the bare create of BenchmarkCreateWithInsights: one INSERT of a Feedback record.
func (s barePostgres) create(ctx context.Context, in bareBody) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO records(id, workspace_id, type, title, description, search_text, status, source, created_at, updated_at)
		VALUES ($1, $2, 'Feedback', $3, $4, $5, 'Triage', 'API', now(), now())`,
		core.NewID(), s.ws, in.Title, in.Description, core.Fold(in.Title+" "+in.Description))
	return err
}

func (s barePostgres) setStatus(ctx context.Context, id, status string) (out barePatched, err error) {
	var at time.Time
	err = s.pool.QueryRow(ctx, `UPDATE records SET status = $1, updated_at = now(), version = version + 1
		WHERE workspace_id = $2 AND id = $3 RETURNING id, title, status, updated_at`,
		status, s.ws, id).Scan(&out.ID, &out.Title, &out.Status, &at)
	out.UpdatedAt = at.UnixMilli()
	return out, err
}

func benchPatchStatus(b *testing.B, st core.Store, bare bareStore) {
	const records, workers, block = 200, 4, 50
	ctx := context.Background()
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Bench", core.PlanBusiness, 0)
	must(b, err)
	_, key, err := svc.CreateKey(ctx, ws.ID, "bench")
	must(b, err)
	apiSrv := httptest.NewServer(New(svc, Options{Log: quietLog(), RateLimit: RateLimit{PerSecond: 1e9, Burst: 1 << 30}}).Handler())
	defer apiSrv.Close()
	apiIDs, bareIDs := make([]string, records), make([]string, records)
	for i := range records {
		res, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordIdea, Title: "Idea " + strings.Repeat("x", i%7)})
		must(b, err)
		apiIDs[i] = string(res.Record.ID)
		id := core.NewID()
		must(b, bare.insert(ctx, id))
		bareIDs[i] = string(id)
	}
	bareSrv := httptest.NewServer(barePatchHandler(bare))
	defer bareSrv.Close()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	statuses := []string{"Planned", "In progress"}
	send := func(url string, i int) {
		body := `{"status":"` + statuses[(i/records)%2] + `"}`
		rq, _ := http.NewRequest("PATCH", url, strings.NewReader(body))
		rq.Header.Set("Content-Type", "application/json")
		rq.Header.Set("X-API-Key", key)
		res, err := client.Do(rq)
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Errorf("%s: status %d", url, res.StatusCode)
		}
	}
	run := func(prefix string, ids []string, base int) time.Duration {
		var next atomic.Int64
		var wg sync.WaitGroup
		t0 := time.Now()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1)); i <= block; i = int(next.Add(1)) {
					n := base + i
					send(prefix+ids[n%records], n)
				}
			}()
		}
		wg.Wait()
		return time.Since(t0)
	}
	// The process's CPU per request of each arm (client and server side together) is the load-independent
	// figure: on a busy machine the throughputs move with the other work, the CPU spent much less.
	var apiTime, bareTime, apiCPU, bareCPU time.Duration
	n := 0
	for b.Loop() {
		c0 := testkit.ProcessCPU()
		apiTime += run(apiSrv.URL+"/api/records/", apiIDs, n*block)
		c1 := testkit.ProcessCPU()
		bareTime += run(bareSrv.URL+"/bare/", bareIDs, n*block)
		apiCPU, bareCPU = apiCPU+c1-c0, bareCPU+testkit.ProcessCPU()-c1
		n++
	}
	reqs := float64(n * block)
	b.ReportMetric(reqs/apiTime.Seconds(), "api-req/s")
	b.ReportMetric(reqs/bareTime.Seconds(), "bare-req/s")
	b.ReportMetric(bareTime.Seconds()/apiTime.Seconds(), "ratio")
	b.ReportMetric(float64(apiCPU.Microseconds())/reqs, "api-cpu-µs/req")
	b.ReportMetric(float64(bareCPU.Microseconds())/reqs, "bare-cpu-µs/req")
}

// barePatchHandler is the floor of an edit: decode, one UPDATE … RETURNING, answer 200 with the row.
func barePatchHandler(bare bareStore) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Status string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Status == "" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		out, err := bare.setStatus(r.Context(), strings.TrimPrefix(r.URL.Path, "/bare/"), in.Status)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
}
