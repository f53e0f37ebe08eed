package webhook

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

func plainEntry(name string) map[string]any {
	return map[string]any{"name": name, "secret": "s3cret",
		"mapping": map[string]any{"title": "title", "description": "body", "customer_email": "email",
			"external_id": "id", "source": "channel"}}
}

func TestDeliveryCreatesOnceAndChecksSignatureFirst(t *testing.T) {
	h := newHarness(t)
	h.start(plainEntry("crm"))
	body := []byte(`{"id": "T-1", "title": "Export to Excel", "body": "write to <jane@acme.com> please", "email": "jane@acme.com"}`)

	r := h.post("crm", body, hexSig("s3cret", body)).want(t, 201, `"created":true`)
	first := r.ids(t)
	again := h.post("crm", body, hexSig("s3cret", body)).want(t, 201, `"created":false`).ids(t)
	if len(first) != 1 || again[0].ID != first[0].ID {
		t.Fatalf("a redelivery made another record: %v then %v", first, again)
	}
	recs := h.records()
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	rec := recs[0]
	// Plain text keeps an address in angle brackets, as every connector does; source is Other by default;
	// the customer's domain groups them under a company.
	if rec.Description != "write to <jane@acme.com> please" || rec.Source != "Other" || rec.Customer != "Acme" ||
		rec.CustomerEmail != "jane@acme.com" {
		t.Fatalf("record %+v", rec)
	}
	if rec.CreatedBy != (core.Actor{Kind: core.ActorConnector, Name: "crm"}) {
		t.Fatalf("the record's history credits %+v, want the webhook entry", rec.CreatedBy)
	}

	for name, hdr := range map[string]http.Header{
		"no signature":    nil,
		"wrong secret":    hexSig("other", body),
		"no prefix":       {"X-Signature": {strings.TrimPrefix(hexSig("s3cret", body).Get("X-Signature"), "sha256=")}},
		"not hex":         {"X-Signature": {"sha256=zz"}},
		"tampered body":   hexSig("s3cret", []byte(`{"id": "T-2"}`)),
		"signature in qs": {"X-Other": {"x"}},
	} {
		t.Run(name, func(t *testing.T) {
			// A body that is not even JSON: the signature is refused before the body is looked at.
			h.post("crm", []byte(`not json`), hdr).want(t, 401, `"error":"unauthorized"`)
			h.post("crm", body[:len(body)-1], hdr).want(t, 401)
		})
	}
	if len(h.records()) != 1 {
		t.Fatal("a refused delivery created a record")
	}
	if strings.Contains(h.logs.String(), "s3cret") {
		t.Fatal("the secret reached the log")
	}
}

func TestDeliveryErrors(t *testing.T) {
	h := newHarness(t)
	e := plainEntry("crm")
	e["max_body"] = 512
	h.start(e)
	sign := func(b string) http.Header { return hexSig("s3cret", []byte(b)) }
	tests := []struct {
		name, body string
		header     http.Header
		status     int
		contains   string
	}{
		{"missing mapped title", `{"id": "1", "email": "a@b.co"}`, nil, 400, `missing field \"title\": nothing at title or body`},
		{"missing external id", `{"title": "x"}`, nil, 400, `missing field \"external_id\"`},
		{"invalid json", `{"title": `, nil, 400, "not valid JSON"},
		{"two values", `{"id":"1","title":"a"} {}`, nil, 400, "more than one JSON value"},
		{"a field twice", `{"id":"1","title":"a","title":"b"}`, nil, 400, `duplicate field \"title\"`},
		{"a field twice in a batch item", `[{"id":"d1","title":"a"},{"id":"d2","title":"b","email":"a@b.co","email":"c@d.co"}]`, nil, 400, `duplicate field \"email\" in [1]`},
		{"bad email", `{"id": "1", "title": "t", "email": "Jane <jane@acme.com>"}`, nil, 400, "customer_email"},
		{"a good delivery", `{"id": "1", "title": "t", "created": "2026-11-01"}`, nil, 201, `"created":true`},
		{"batch with a bad item refused whole", `[{"id": "b1", "title": "ok"}, {"id": "b2", "title": "t", "email": "nope"}]`, nil, 400, "customer_email"},
		{"too large", `{"id": "1", "title": "` + strings.Repeat("x", 600) + `"}`, nil, 413, "body too large"},
		{"not json content type", `{"id": "1", "title": "t"}`, http.Header{"Content-Type": {"text/plain"}}, 415, "unsupported media type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hdr := sign(tc.body)
			for k, v := range tc.header {
				hdr[k] = v
			}
			h.post("crm", []byte(tc.body), hdr).want(t, tc.status, tc.contains)
		})
	}
	h.post("nosuch", []byte(`{}`), nil).want(t, 404, "not found")
	if n := len(h.records()); n != 1 {
		t.Fatalf("%d records; only the one good delivery should have made one", n)
	}
	// Each authenticated payload answered 400 or 415 is a refused item of the entry, not a fault.
	if err := h.set.board.Flush(h.ctx, connectors.StateRunning, true); err != nil {
		t.Fatal(err)
	}
	sts, err := h.svc.Connectors(h.ctx, h.ws)
	if err != nil || len(sts) != 1 {
		t.Fatalf("statuses %+v, %v", sts, err)
	}
	if st := sts[0]; st.Refused != 9 || st.LastRefused != "a payload that is not JSON" || st.LastError != "" {
		t.Errorf("status %+v, want 9 refused payloads, the last one's reason and no last_error", st)
	}
	if f := h.svc.Faults().List(); len(f) != 0 {
		t.Errorf("failing %v after refused payloads", f)
	}
}

func TestBatchAndMapping(t *testing.T) {
	h := newHarness(t)
	if _, err := h.svc.AddLookups(h.ctx, h.ws, core.LookupTag, []string{"Bulk", "Tags"}); err != nil {
		t.Fatal(err)
	}
	h.start(map[string]any{"name": "zap", "secret": "s3cret", "mapping": goldenEntries["generic-batch"]["mapping"]})
	body, err := os.ReadFile(filepath.Join("testdata", "presets", "generic-batch.json"))
	if err != nil {
		t.Fatal(err)
	}
	ids := h.post("zap", body, hexSig("s3cret", body)).want(t, 201).ids(t)
	if len(ids) != 2 || !ids[0].Created || !ids[1].Created {
		t.Fatalf("ids %v", ids)
	}
	byTitle := map[string]core.Record{}
	for _, r := range h.records() {
		byTitle[r.Title] = r
	}
	bulk, dark := byTitle["Bulk edit for tags"], byTitle["Dark mode please"]
	if bulk.Source != "Web" || bulk.Customer != "Acme" || len(bulk.Tags) != 2 || !bulk.CreatedAt.Equal(time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("bulk: %+v", bulk)
	}
	// A personal mailbox gives a contact but no company; a blank source is Other.
	if dark.Source != "Other" || dark.Customer != "" || dark.CustomerEmail != "li.wei@gmail.com" {
		t.Errorf("dark: %+v", dark)
	}
}

func TestBearerAndRotatedSecretFile(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	secretFile := filepath.Join(dir, "secret")
	write := func(p, v string) {
		if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(tokenFile, "tok-1")
	write(secretFile, "key-1")
	bearer := plainEntry("form")
	delete(bearer, "secret")
	bearer["auth"], bearer["token"] = "bearer", "file:"+tokenFile
	signed := plainEntry("signed")
	signed["secret"] = "file:" + secretFile
	h.start(bearer, signed)

	body := func(id string) []byte { return []byte(fmt.Sprintf(`{"id": %q, "title": "t %s"}`, id, id)) }
	auth := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }
	h.post("form", body("1"), auth("tok-1")).want(t, 201)
	h.post("form", body("2"), auth("tok-2")).want(t, 401)
	h.post("form", body("2"), nil).want(t, 401)
	h.post("signed", body("3"), hexSig("key-1", body("3"))).want(t, 201)

	write(tokenFile, "tok-2")
	write(secretFile, "key-2")
	h.post("form", body("4"), auth("tok-1")).want(t, 401)
	h.post("form", body("4"), auth("tok-2")).want(t, 201)
	h.post("signed", body("5"), hexSig("key-1", body("5"))).want(t, 401)
	h.post("signed", body("5"), hexSig("key-2", body("5"))).want(t, 201)

	// A secret file that disappears is feedbridge's fault: 500, nothing created, the entry shows an error.
	if err := os.Remove(secretFile); err != nil {
		t.Fatal(err)
	}
	h.post("signed", body("6"), hexSig("key-2", body("6"))).want(t, 500, "error_id")
	if n := len(h.records()); n != 4 {
		t.Fatalf("%d records, want 4", n)
	}
	if err := h.set.board.Flush(h.ctx, connectors.StateRunning, true); err != nil {
		t.Fatal(err)
	}
	sts, err := h.svc.Connectors(h.ctx, h.ws)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]core.ConnectorStatus{}
	for _, s := range sts {
		states[s.Name] = s
	}
	if s := states["signed"]; s.Kind != Kind || s.State != string(connectors.StateRunning) || s.LastError == "" || strings.Contains(s.LastError, dir) {
		t.Fatalf("status of signed: %+v", s)
	}
	// The form entry's refused tokens show on its status; its successes do not hide them.
	if s := states["form"]; s.Refused != 3 || s.LastRefused != "missing or invalid bearer token" || s.LastError != "" ||
		s.LastSuccessAt.IsZero() {
		t.Fatalf("status of form: %+v", s)
	}
}

func TestPresetDeliveries(t *testing.T) {
	h := newHarness(t)
	h.start(map[string]any{"name": "zendesk", "preset": "zendesk", "secret": "zk"},
		map[string]any{"name": "intercom", "preset": "intercom", "secret": "ic"},
		map[string]any{"name": "typeform", "preset": "typeform", "secret": "tf"})
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "presets", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	now := time.Now().UTC().Format(time.RFC3339)
	zd := read("zendesk")
	h.post("zendesk", zd, http.Header{"X-Zendesk-Webhook-Signature": {base64Sig("zk", now, zd)},
		"X-Zendesk-Webhook-Signature-Timestamp": {now}}).want(t, 201)
	stale := time.Now().Add(-6 * time.Minute).UTC().Format(time.RFC3339)
	h.post("zendesk", zd, http.Header{"X-Zendesk-Webhook-Signature": {base64Sig("zk", stale, zd)},
		"X-Zendesk-Webhook-Signature-Timestamp": {stale}}).want(t, 401)
	ic := read("intercom")
	h.post("intercom", ic, http.Header{"X-Hub-Signature": {sha1Sig("ic", ic)}}).want(t, 201)
	tf := read("typeform")
	h.post("typeform", tf, http.Header{"Typeform-Signature": {"sha256=" + base64Sig("tf", "", tf)}}).want(t, 201)

	got := map[string]core.Record{}
	for _, r := range h.records() {
		got[r.Source] = r
	}
	if r := got["Zendesk"]; r.Title != "PDF export cuts off the last column" {
		t.Errorf("zendesk: %+v", r)
	}
	if r := got["Intercom"]; r.Customer != "Bluefin Logistics" || !strings.Contains(r.Description, "tedious & slow") ||
		strings.Contains(r.Description, "<p>") {
		t.Errorf("intercom: %+v", r)
	}
	if r := got["Other"]; r.Title != "Onboarding checklist is hard to find" || r.Customer != "Nordwind Energie" {
		t.Errorf("typeform: %+v", r)
	}
}
