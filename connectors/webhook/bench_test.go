package webhook

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"testing"
)

// BenchmarkDelivery serves signed one-item deliveries straight to the handler, each written to a real
// SQLite store: the path the webhook's own code adds to a create, for profiling (-cpuprofile).
func BenchmarkDelivery(b *testing.B) {
	h := newHarness(b)
	h.start(plainEntry("crm"))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		body := fmt.Appendf(nil, `{"id": "B-%d", "title": "Export to CSV takes minutes %d", "body": "from a webhook", "channel": "zapier"}`, i, i)
		req := httptest.NewRequest("POST", "/hooks/crm", bytes.NewReader(body))
		req.Header = hexSig("s3cret", body)
		req.Header.Set("Content-Type", "application/json")
		req.SetPathValue("name", "crm")
		w := httptest.NewRecorder()
		h.set.serve(w, req)
		if w.Code != 201 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
