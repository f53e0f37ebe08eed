package slack

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// BenchmarkSlashCommand measures a signed /feedback end to end: signing, HTTP through the real server,
// verification, parsing, the workspace check and the SQLite write, and the JSON answer. The direct
// Submit beside it is the store's own floor in the same run.
func BenchmarkSlashCommand(b *testing.B) {
	h := newHarness(b)
	h.quiet = true
	ws := h.workspace("Acme", 0)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)

	b.Run("direct-submit", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			start := time.Now()
			_, err := h.svc.Submit(h.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "Export is slow",
				Description: "Takes five minutes", CustomerEmail: "jane@acme.com", Source: "Slack"})
			if err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
	b.Run("signed-command", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			form := h.commandForm("T0ACME", "/feedback", "jane@acme.com Export is slow | Takes five minutes")
			start := time.Now()
			status, body := h.post("/slack/commands", "s3cret-one", form, nil)
			lat = append(lat, time.Since(start))
			if status != http.StatusOK || !strings.Contains(string(body), "Saved Feedback") {
				b.Fatalf("%d %s", status, body)
			}
		}
		reportPercentiles(b, lat)
	})
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(float64(len(lat))*p))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
