package api

import (
	"context"
	"net/http"
	"time"
)

// DefaultRequestTimeout is how long a request's work may take before the store queries it runs are
// cancelled. A client that disconnects cancels them at once; the store adds a limit of its own.
const DefaultRequestTimeout = 30 * time.Second

// withDeadline gives every request's context a deadline, so a query that outlives any use of its answer
// stops taking a database connection and its CPU.
func (s *Server) withDeadline(next http.Handler) http.Handler {
	if s.requestTimeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.requestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
