package api

import "time"

// DefaultRequestTimeout is how long a request's work may take before the store queries it runs are
// cancelled. A client that disconnects cancels them at once; the store adds a limit of its own.
// withRequestID gives every request's context this deadline, so a query that outlives any use of its
// answer stops taking a database connection and its CPU.
const DefaultRequestTimeout = 30 * time.Second
