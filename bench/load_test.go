package main

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSummarizeLoad checks the per-second buckets: by due time, errors apart from latencies, and RSS.
func TestSummarizeLoad(t *testing.T) {
	res := &LoadResult{Duration: 3 * time.Second, RSSStartKB: 1000, RSSEndKB: 1500}
	samples := []loadSample{
		{due: 0, latency: 10 * time.Millisecond, op: "list"},
		{due: 500 * time.Millisecond, latency: 30 * time.Millisecond, op: "search"},
		{due: 900 * time.Millisecond, latency: 20 * time.Millisecond, op: "search"},
		{due: 1100 * time.Millisecond, op: "create-feedback", err: "status 500"},
		{due: 1200 * time.Millisecond, latency: 5 * time.Millisecond, op: "verify"},
		{due: 2500 * time.Millisecond, op: "search", err: "status 500"},
	}
	summarizeLoad(res, samples, map[int]int{0: 1000, 1: 2048, 2: 1200})
	if res.Planned != 6 || res.Answered != 4 {
		t.Errorf("planned %d answered %d, want 6 and 4", res.Planned, res.Answered)
	}
	if res.Errors["status 500"] != 2 || res.OpErrors["search"] != 1 || res.OpErrors["create-feedback"] != 1 {
		t.Errorf("errors %v by op %v", res.Errors, res.OpErrors)
	}
	if res.Overall.P50 != 10*time.Millisecond || res.Overall.Max != 30*time.Millisecond {
		t.Errorf("overall %+v", res.Overall)
	}
	if s := res.ByOp["search"]; s.Count != 2 || s.P50 != 20*time.Millisecond {
		t.Errorf("search %+v", s)
	}
	want := []loadSecond{
		{Second: 0, Requests: 3, P50: 20 * time.Millisecond, P95: 30 * time.Millisecond, P99: 30 * time.Millisecond, RSSKB: 1000},
		{Second: 1, Requests: 2, Errors: 1, P50: 5 * time.Millisecond, P95: 5 * time.Millisecond, P99: 5 * time.Millisecond, RSSKB: 2048},
		{Second: 2, Requests: 1, Errors: 1, RSSKB: 1200},
	}
	if !reflect.DeepEqual(res.Seconds, want) {
		t.Errorf("seconds\n got %+v\nwant %+v", res.Seconds, want)
	}
	if res.RSSPeakKB != 2048 {
		t.Errorf("RSS peak %d, want 2048", res.RSSPeakKB)
	}
}

// TestEmailHandled sums the three email counters across mailboxes and ignores every other series.
func TestEmailHandled(t *testing.T) {
	metrics := `# HELP feedbridge_email_records_created_total Feedback records created from messages.
# TYPE feedbridge_email_records_created_total counter
feedbridge_email_records_created_total{entry="a",mailbox="INBOX"} 250
feedbridge_email_records_created_total{entry="b",mailbox="INBOX"} 7
feedbridge_email_messages_skipped_total{entry="a",mailbox="INBOX",reason="auto-reply"} 3
feedbridge_email_messages_failed_total{entry="a",mailbox="INBOX"} 1
feedbridge_email_messages_fetched_total{entry="a",mailbox="INBOX"} 900
feedbridge_records_created_total{source="Email",type="Feedback"} 500
`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(metrics))
	}))
	defer srv.Close()
	got, err := emailHandled(srv.Client(), strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if got != 261 {
		t.Errorf("handled = %d, want 261 (250 + 7 created, 3 skipped, 1 failed)", got)
	}
}
