package connectors

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/feedbridge/feedbridge/internal/safenet"
)

// HTTPOptions shape the client of a kind that fetches over HTTP.
type HTTPOptions struct {
	// AllowPrivate lets the client dial loopback and private addresses; leave it false for any address
	// that is not the operator's own configuration (and even then, say so in a config key).
	AllowPrivate bool
	// TLS is the TLS configuration; nil: Go's defaults (tests give their own roots here).
	TLS *tls.Config
	// Timeout bounds a whole request, body included; 0: no bound beyond the phases below (a kind that
	// streams a large body bounds it itself, by idleness).
	Timeout time.Duration
}

// HTTPClient is the one client for kinds that fetch: no proxy from the environment (a proxy would be
// the only host dialled and so escape the address check), every address checked when it is dialled
// (internal/safenet: private and loopback addresses refused unless allowed, so a name that resolves to
// one is refused too), bounded connection and header phases, and redirects only to https on the same
// host, so that request headers holding secrets go nowhere else.
func HTTPClient(o HTTPOptions) *http.Client {
	d := safenet.Dialer(o.AllowPrivate)
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSClientConfig:       o.TLS,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		IdleConnTimeout:       30 * time.Second,
		MaxIdleConns:          2,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: tr, Timeout: o.Timeout, CheckRedirect: sameHostRedirect}
}

// sameHostRedirect follows at most 5 redirects, each to https on the host first asked.
func sameHostRedirect(req *http.Request, via []*http.Request) error {
	switch {
	case len(via) >= 5:
		return errors.New("more than 5 redirects")
	case req.URL.Scheme != "https":
		return errors.New("redirect away from https refused")
	case req.URL.Host != via[0].URL.Host:
		return fmt.Errorf("redirect to another host (%s) refused", req.URL.Hostname())
	}
	return nil
}
