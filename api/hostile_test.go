package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// A listing takes at most 50 tags values (a record carries no more): more is a 400 naming the limit,
// never the store's failure.
func TestListTagsCap(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		query := func(n int) string {
			v := url.Values{"record_type": {"Feedback"}}
			for range n {
				v.Add("tags", string(core.NewID()))
			}
			return "/api/records?" + v.Encode()
		}
		e.get(query(50)).want(t, 200)
		for _, n := range []int{51, 1000} {
			r := e.get(query(n)).want(t, 400)
			if code := r.errorCode(t); code != "too many tags" {
				t.Errorf("%d tags: error %q", n, code)
			}
			if !strings.Contains(string(r.body), "at most 50 tags") {
				t.Errorf("%d tags: %s", n, r.body)
			}
		}
	})
}

// customer_email takes at most 254 characters, the longest address a mail path carries.
func TestCustomerEmailLength(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		addr := func(n int) string { return strings.Repeat("a", 64) + "@" + strings.Repeat("b", n-64-1-4) + ".com" }
		e.post("/api/records/feedback", map[string]any{"title": "Fits", "customer_email": addr(254)}).want(t, 201)
		r := e.post("/api/records/feedback", map[string]any{"title": "Too long", "customer_email": addr(255)}).want(t, 400)
		if code := r.errorCode(t); code != "customer_email is too long" {
			t.Errorf("error %q: %s", code, r.body)
		}
		if !strings.Contains(string(r.body), "limit is 254") {
			t.Errorf("body %s", r.body)
		}
	})
}

// Failed authentications are limited per client address: after 20 invalid keys the address gets 429 with
// Retry-After and no lookup, while a key that just worked from it still works, and a client at another
// address is not affected at all.
func TestFailedAuthRateLimit(t *testing.T) {
	e := newEnv(t, openSQLite, envOpts{})
	e.get("/api/records/verify").want(t, 200) // the valid key, seen just before the attack
	bad := "fbk_" + strings.Repeat("x", 40)
	for i := range failedAuthBurst {
		if r := e.do(req{method: "GET", path: "/api/records/verify", key: bad}); r.status != 401 {
			t.Fatalf("guess %d: status %d, want 401", i, r.status)
		}
	}
	r := e.do(req{method: "GET", path: "/api/records/verify", key: bad}).want(t, 429)
	if code := r.errorCode(t); code != "too many failed authentications" || r.header.Get("Retry-After") == "" {
		t.Errorf("error %q, Retry-After %q", code, r.header.Get("Retry-After"))
	}
	e.get("/api/records/verify").want(t, 200)

	// Another client, at another loopback address.
	other := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
	for key, want := range map[string]int{e.otherKey: 200, bad: 401} {
		hr, err := http.NewRequest("GET", e.srv.URL+"/api/records/verify", nil)
		must(t, err)
		hr.Header.Set("X-API-Key", key)
		hr.Header.Set("X-Forwarded-For", "127.0.0.1")
		res, err := other.Do(hr)
		must(t, err)
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("other client: status %d, want %d", res.StatusCode, want)
		}
	}
}

// The signals window is at most 366 days: a longer one is a 400 naming the bound, never a scan of
// everything.
func TestSignalsWindowBound(t *testing.T) {
	e := newEnv(t, openSQLite, envOpts{})
	e.get("/api/records/signals?created_from=2025-01-01&created_to=2025-12-31").want(t, 200)
	r := e.get("/api/records/signals?created_from=2000-01-01&created_to=2025-12-31").want(t, 400)
	if code := r.errorCode(t); code != "window too long" || !strings.Contains(string(r.body), "366 days") {
		t.Errorf("error %q: %s", code, r.body)
	}
	e.get("/api/records/signals?created_from=2000-01-01").want(t, 400)
}

// A cursor carries an HMAC keyed by the store's own secret: one computed the way an unkeyed checksum would
// be, by anyone who knows the layout, is refused.
func TestForgedCursorRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		for i := range 3 {
			e.submit(e.ws.ID, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("r%d", i)})
		}
		first := e.get("/api/records?record_type=Feedback&limit=1").want(t, 200)
		if first.header.Get("X-Next-Cursor") == "" {
			t.Fatal("no next cursor")
		}
		e.get("/api/records?record_type=Feedback&limit=1&cursor="+first.header.Get("X-Next-Cursor")).want(t, 200)

		q := core.ListQuery{Type: core.RecordFeedback}
		pos := binary.BigEndian.AppendUint64(nil, uint64(time.Now().Add(time.Hour).UnixMilli()))
		pos = append(pos, strings.Repeat("f", 24)...)
		h := sha256.New()
		fmt.Fprintf(h, "%s|%s|%s|%t|%d|%d|%d|%s|%s|%v|", e.ws.ID, q.Type, q.Search, q.Asc, q.From.UnixMilli(),
			q.To.UnixMilli(), q.UpdatedSince.UnixMilli(), q.ProductID, q.UserID, q.TagIDs)
		h.Write(pos)
		for _, n := range []int{8, 16} {
			forged := base64.RawURLEncoding.EncodeToString(append(append([]byte(nil), pos...), h.Sum(nil)[:n]...))
			r := e.get("/api/records?record_type=Feedback&limit=1&cursor="+forged).want(t, 400)
			if code := r.errorCode(t); code != "invalid cursor" {
				t.Errorf("error %q", code)
			}
		}
	})
}
