package api

import (
	"net/http"
	"testing"
	"time"
)

// TestRequestDeadlineReachesTheStore: the request's deadline is the context of every store query it runs;
// when it passes, the queries stop and the client gets a 503 with Retry-After, not a hanging connection.
func TestRequestDeadlineReachesTheStore(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{timeout: time.Nanosecond, authTTL: -1})
		r := e.get("/api/records?record_type=Feedback&search="+"yyyyyyyyyy").want(t, http.StatusServiceUnavailable)
		if code := r.errorCode(t); code != "request timed out" {
			t.Fatalf("error %q, want \"request timed out\"", code)
		}
		if r.header.Get("Retry-After") == "" {
			t.Fatal("a timed-out request carries no Retry-After")
		}
	})
}
