package api

import (
	"net"
	"net/http"
	"time"
)

// Failed authentication is limited per client address: each refused key costs a store lookup, and a
// stream of guesses would cost one each. The bucket holds failedAuthBurst failures and refills at
// failedAuthPerSecond; a client that has spent it gets 429 for keys the server has not just seen succeed,
// without a lookup. Keys that authenticated within the auth cache's lifetime still pass, and other
// addresses are not affected.
//
// The address is the connection's peer. X-Forwarded-For is ignored: without a configured proxy it is
// whatever the client claims, and trusting it would let a guesser pick a fresh address per request.
const (
	failedAuthBurst     = 20
	failedAuthPerSecond = 1
)

// clientAddr is the peer's IP address without the port.
func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// failedAuthLimited reports whether addr has spent its failure budget, and how long until it may fail once
// more.
func (s *Server) failedAuthLimited(addr string) (bool, time.Duration) {
	d := s.authFailures.peek(addr)
	return !d.allowed, d.retry
}

func tooManyFailures(retry time.Duration) error {
	err := newAPIError(http.StatusTooManyRequests, "too many failed authentications",
		"This address sent too many invalid API keys; retry after %s seconds.", retryAfter(retry))
	err.header = http.Header{"Retry-After": {retryAfter(retry)}}
	return err
}
