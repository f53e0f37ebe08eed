package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
)

// pairHarness serves the API and the bare handlers over one store from two httptest servers.
type pairHarness struct {
	st          core.Store
	svc         *core.Service
	ws          core.ID
	key         string
	api, bare   *httptest.Server
	mux         *http.ServeMux
	client      *http.Client
	seedRecords int
}

func newPairHarness(ctx context.Context, storeURL string) (*pairHarness, error) {
	st, err := store.Open(ctx, storeURL)
	if err != nil {
		return nil, err
	}
	h := &pairHarness{st: st, svc: core.NewService(st, core.Options{}), mux: http.NewServeMux(),
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	ws, err := h.svc.CreateWorkspace(ctx, "Pair", core.PlanBusiness, 0)
	if err == nil {
		_, h.key, err = h.svc.CreateKey(ctx, ws.ID, "bench")
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	h.ws = ws.ID
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	hooks, err := h.webhookRoutes()
	if err != nil {
		st.Close()
		return nil, err
	}
	h.api = httptest.NewServer(api.New(h.svc, api.Options{Log: logrus.NewEntry(quiet),
		RateLimit: api.RateLimit{PerSecond: 1e9, Burst: 1 << 30}, Extra: hooks}).Handler())
	h.mux.HandleFunc("GET /bare/records", h.bareList)
	h.bare = httptest.NewServer(h.mux)
	return h, nil
}

func (h *pairHarness) close() {
	h.api.Close()
	h.bare.Close()
	h.st.Close()
}

// bareList runs the store query core.List would run for ?record_type=Feedback[&search=] and writes the
// rows with nothing but their id and title.
func (h *pairHarness) bareList(w http.ResponseWriter, r *http.Request) {
	q := core.ListQuery{Type: core.RecordFeedback, Search: core.Fold(r.URL.Query().Get("search")), Limit: core.DefaultPageSize + 1}
	recs, err := h.st.Records(r.Context(), h.ws, q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	type row struct {
		ID    core.ID `json:"id"`
		Title string  `json:"title"`
	}
	out := make([]row, 0, len(recs))
	for _, rec := range recs[:min(len(recs), core.DefaultPageSize)] {
		out = append(out, row{rec.ID, rec.Title})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

var pairWords = strings.Fields(`export csv dashboard slow login pricing page mobile app api key report filter search
	invoice billing team member sso okta slack email import sync chart graph widget onboarding tour dark mode
	notification webhook zapier jira comment mention archive permission role admin audit timezone calendar
	straße café été naïve résumé`)

// seed writes n feedback records with text drawn from pairWords through the service's batch path.
func (h *pairHarness) seed(ctx context.Context, n int) error {
	rng := rand.New(rand.NewPCG(3, 4))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = pairWords[rng.IntN(len(pairWords))]
		}
		return strings.Join(w, " ")
	}
	base := time.Now().Add(-time.Duration(n) * time.Second)
	for done := 0; done < n; {
		batch := make([]core.Submission, 0, 1000)
		for ; len(batch) < cap(batch) && done < n; done++ {
			batch = append(batch, core.Submission{Type: core.RecordFeedback, Title: words(5), Description: words(25),
				CustomerEmail: fmt.Sprintf("user%d@company%d.com", rng.IntN(2000), rng.IntN(300)), Source: "csv",
				CreatedAt: base.Add(time.Duration(done) * time.Second)})
		}
		res, err := h.svc.SubmitBatch(ctx, h.ws, batch)
		if err != nil {
			return err
		}
		for _, r := range res {
			if r.Err != nil {
				return r.Err
			}
		}
	}
	h.seedRecords = n
	// A SQLite store indexes the batches' full-text entries a moment later; the searches measure the index,
	// not the queue that an import leaves behind for those seconds.
	if f, ok := h.svc.Store().(interface{ FlushIndex(context.Context) error }); ok {
		return f.FlushIndex(ctx)
	}
	return nil
}

// interleave sends n GETs to each server, alternating which goes first, and returns both latency lists.
func (h *pairHarness) interleave(n int, paths func(i int) (apiPath, barePath string)) (apiLat, bareLat []time.Duration, err error) {
	for i := 0; i < n; i++ {
		ap, bp := paths(i)
		calls := []func() error{
			func() error { d, err := h.do("GET", h.api.URL+ap, "", 200); apiLat = append(apiLat, d); return err },
			func() error { d, err := h.do("GET", h.bare.URL+bp, "", 200); bareLat = append(bareLat, d); return err },
		}
		if i%2 == 1 {
			calls[0], calls[1] = calls[1], calls[0]
		}
		for _, c := range calls {
			if err := c(); err != nil {
				return nil, nil, err
			}
		}
	}
	return apiLat, bareLat, nil
}

func (h *pairHarness) interleaveCreate(n int) (apiLat, bareLat []time.Duration, err error) {
	return h.interleavePost(n, `{"title":"Export to CSV takes minutes %d","source":"api"}`, func(body string) (time.Duration, error) {
		return h.do("POST", h.api.URL+"/api/records/feedback", body, 201)
	})
}

// interleavePost sends n bodies (format with the request number) to send and to the bare create handler,
// alternating which goes first, and returns both latency lists.
func (h *pairHarness) interleavePost(n int, format string, send func(body string) (time.Duration, error)) (lat, bareLat []time.Duration, err error) {
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(format, i)
		calls := []func() error{
			func() error { d, err := send(body); lat = append(lat, d); return err },
			func() error {
				d, err := h.do("POST", h.bare.URL+"/bare/feedback", body, 201)
				bareLat = append(bareLat, d)
				return err
			},
		}
		if i%2 == 1 {
			calls[0], calls[1] = calls[1], calls[0]
		}
		for _, c := range calls {
			if err := c(); err != nil {
				return nil, nil, err
			}
		}
	}
	return lat, bareLat, nil
}

func (h *pairHarness) do(method, u, body string, want int) (time.Duration, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	rq, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, err
	}
	rq.Header.Set("X-API-Key", h.key)
	if body != "" {
		rq.Header.Set("Content-Type", "application/json")
	}
	return h.timed(rq, want)
}

// timed sends rq, reads the whole answer and returns how long that took.
func (h *pairHarness) timed(rq *http.Request, want int) (time.Duration, error) {
	start := time.Now()
	res, err := h.client.Do(rq)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	d := time.Since(start)
	if res.StatusCode != want {
		return d, fmt.Errorf("%s %s: status %d, want %d", rq.Method, rq.URL.Path, res.StatusCode, want)
	}
	return d, nil
}

// bareInsert is the PostgreSQL create floor: decode, one INSERT of the same row, answer 201.
type bareInsert struct {
	pool *pgxpool.Pool
	ws   core.ID
}

func newBareInsert(ctx context.Context, schemaURL string) (*bareInsert, error) {
	st, err := store.Open(ctx, schemaURL) // the store's own migrations, so indexes and triggers match
	if err != nil {
		return nil, err
	}
	ws, err := core.NewService(st, core.Options{}).CreateWorkspace(ctx, "Bare", core.PlanBusiness, 0)
	st.Close()
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.New(ctx, schemaURL)
	if err != nil {
		return nil, err
	}
	return &bareInsert{pool: pool, ws: ws.ID}, nil
}

func (b *bareInsert) close() { b.pool.Close() }

func (b *bareInsert) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct{ Title, Description, Source string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Title == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	id, now := core.NewID(), time.Now().UTC()
	insert := `INSERT INTO records (workspace_id, id, type, title, description, search_text, status, source, created_at, updated_at)
		VALUES ($1, $2, 'Feedback', $3, $4, $5, 'Triage', 'API', $6, $6)`
	args := []any{string(b.ws), string(id), in.Title, in.Description, core.Fold(in.Title + " " + in.Description), now}
	if in.Description != "" {
		// A feedback with a description queues its insight job in the same statement, as the store does:
		// the floor does the same work for the same body.
		insert = `WITH r AS (` + insert + ` RETURNING workspace_id, id)
			INSERT INTO queue_items (id, queue, kind, workspace_id, order_key, body, state, retry_for_ms, run_at,
				give_up_at, created_at, updated_at)
			SELECT $7, 'insights', 'insight', r.workspace_id, r.id, '', 'queued', 86400000, $6, $6 + interval '1 day', $6, $6 FROM r`
		args = append(args, string(core.NewID()))
	}
	if _, err := b.pool.Exec(r.Context(), insert, args...); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "title": in.Title})
}
