package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
)

// TestRequestLogLine checks the one line each request leaves: the fields of the server's own entry, what
// the request was and how it ended, the key's workspace, and never the key; with the level above Info a
// served request leaves nothing. The request series count each route and status on its own.
func TestRequestLogLine(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		ctx := context.Background()
		svc := core.NewService(open(t), core.Options{})
		ws, err := svc.CreateWorkspace(ctx, "Logged", core.PlanPro, -1)
		must(t, err)
		_, key, err := svc.CreateKey(ctx, ws.ID, "logger")
		must(t, err)
		logs := &testkit.Buffer{}
		l := logrus.New()
		l.SetOutput(logs)
		l.SetFormatter(&logrus.JSONFormatter{})
		reg := prometheus.NewRegistry()
		m, err := NewMetrics(reg)
		must(t, err)
		srv := httptest.NewServer(New(svc, Options{Log: l.WithField("component", "api"), Metrics: m}).Handler())
		defer srv.Close()
		post := func(body string) int {
			rq, _ := http.NewRequest("POST", srv.URL+"/api/records/feedback", strings.NewReader(body))
			rq.Header.Set("Content-Type", "application/json")
			rq.Header.Set("X-API-Key", key)
			rq.Header.Set("X-Request-ID", "log-line-1")
			res, err := http.DefaultClient.Do(rq)
			must(t, err)
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			return res.StatusCode
		}

		if got := post(`{"title":"Logged once","source":"api"}`); got != 201 {
			t.Fatalf("create: status %d", got)
		}
		var line map[string]any
		must(t, json.Unmarshal([]byte(strings.TrimSpace(logs.String())), &line))
		for k, want := range map[string]any{
			"component": "api", "route": "POST /api/records/feedback", "method": "POST", "path": "/api/records/feedback",
			"status": float64(201), "request_id": "log-line-1", "workspace": string(ws.ID), "level": "info", "msg": "request",
		} {
			if line[k] != want {
				t.Errorf("log field %s = %v, want %v", k, line[k], want)
			}
		}
		if d, _ := line["duration"].(string); d == "" {
			t.Error("log line has no duration")
		}
		if strings.Contains(logs.String(), key) {
			t.Error("the key is in the log")
		}

		if got := post(`{"title":""}`); got != 400 {
			t.Fatalf("empty title: status %d", got)
		}
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		if len(lines) != 2 || !strings.Contains(lines[1], `"msg":"request refused"`) || !strings.Contains(lines[1], `"status":400`) {
			t.Errorf("refusal logged as %q", lines[len(lines)-1])
		}

		l.SetLevel(logrus.WarnLevel)
		if got := post(`{"title":"Not logged"}`); got != 201 {
			t.Fatalf("create: status %d", got)
		}
		if n := strings.Count(logs.String(), "\n"); n != 2 {
			t.Errorf("%d lines after a request below the level, want 2", n)
		}

		for status, want := range map[string]float64{"201": 2, "400": 1} {
			c := m.requests.WithLabelValues("POST /api/records/feedback", status)
			if got := testutil.ToFloat64(c); got != want {
				t.Errorf("requests with status %s counted %v, want %v", status, got, want)
			}
		}
	})
}
