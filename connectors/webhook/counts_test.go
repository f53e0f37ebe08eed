package webhook

import (
	"testing"

	"github.com/feedbridge/feedbridge/connectors"
)

// TestTodaysCounts: a created record counts as taken, a redelivery as nothing, and each request turned
// away (bad signature, a payload the mapping cannot read, a record the service refuses) as refused.
func TestTodaysCounts(t *testing.T) {
	h := newHarness(t)
	h.start(plainEntry("crm"))
	body := []byte(`{"id": "T-1", "title": "Export to Excel", "email": "jane@acme.com"}`)
	h.post("crm", body, hexSig("s3cret", body)).want(t, 201, `"created":true`)
	h.post("crm", body, hexSig("s3cret", body)).want(t, 201, `"created":false`)
	h.post("crm", body, hexSig("wrong", body)).want(t, 401)
	bad := []byte(`{"id": "T-2", "email": "a@b.co"}`)
	h.post("crm", bad, hexSig("s3cret", bad)).want(t, 400)
	refused := []byte(`{"id": "T-3", "title": "t", "email": "Jane <jane@acme.com>"}`)
	h.post("crm", refused, hexSig("s3cret", refused)).want(t, 400)
	if err := h.set.board.Flush(h.ctx, connectors.StateRunning, true); err != nil {
		t.Fatal(err)
	}
	sts, err := h.svc.Connectors(h.ctx, h.ws)
	if err != nil || len(sts) != 1 {
		t.Fatalf("connectors %+v %v", sts, err)
	}
	if sts[0].TakenToday != 1 || sts[0].RefusedToday != 3 {
		t.Fatalf("today: taken %d, refused %d; want 1 and 3", sts[0].TakenToday, sts[0].RefusedToday)
	}
}
