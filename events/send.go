package events

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/queueworker"
	"github.com/feedbridge/feedbridge/internal/safenet"
)

// Limits of one delivery. An event body is written by the outbox, so one over maxBody is a record far past
// the API's own limits: it is kept as failed at once rather than retried for a day. Of an answer only the
// first maxAnswer bytes are read: the status is all that counts.
const (
	maxBody      = 4 << 20
	maxAnswer    = 64 << 10
	maxRedirects = 3
)

// Resolver looks up the addresses of a host name; tests stand one in for DNS.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// sender POSTs one subscriber's events.
type sender struct {
	url    string
	secret connectors.Secret
	client *http.Client
	now    func() time.Time
}

func newSender(e Entry, resolve Resolver, tlsConf *tls.Config, now func() time.Time) *sender {
	if resolve == nil {
		resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	dialer := safenet.Dialer(e.AllowPrivate)
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		ips := []netip.Addr{}
		if ip, err := netip.ParseAddr(host); err == nil {
			ips = append(ips, ip)
		} else if ips, err = resolve(ctx, host); err != nil {
			return nil, err
		}
		// Each address is dialled by the refusing dialer, so the check sees what is really connected to,
		// however the name resolves this time.
		var last error = fmt.Errorf("no address for %s", host)
		for _, ip := range ips {
			c, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			last = err
		}
		return nil, last
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would be the only address dialled, hiding the real one from the check
		DialContext:           dial,
		TLSClientConfig:       tlsConf,
		TLSHandshakeTimeout:   e.Timeout,
		ResponseHeaderTimeout: e.Timeout,
		MaxIdleConnsPerHost:   e.Concurrency,
		IdleConnTimeout:       60 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	client := &http.Client{Transport: tr, Timeout: e.Timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		switch {
		case len(via) > maxRedirects:
			return fmt.Errorf("more than %d redirects", maxRedirects)
		case req.Response != nil && req.Response.StatusCode != http.StatusTemporaryRedirect &&
			req.Response.StatusCode != http.StatusPermanentRedirect:
			return fmt.Errorf("answered %d: a redirect that turns the POST into a GET is not followed", req.Response.StatusCode)
		case req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host:
			return fmt.Errorf("redirect to another host or scheme (%s) refused", req.URL.Hostname())
		}
		return nil
	}}
	return &sender{url: e.URL, secret: e.Secret, client: client, now: now}
}

// send delivers one event: nil when the subscriber answered 2xx.
func (s *sender) send(ctx context.Context, it core.QueueItem) error {
	if len(it.Body) > maxBody {
		return queueworker.Permanent(fmt.Errorf("event body of %d bytes is over the %d-byte limit", len(it.Body), maxBody))
	}
	key, err := s.secret.Required()
	if err != nil {
		return fmt.Errorf("secret: %w", err) // names the file at most, never the value
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(it.Body))
	if err != nil {
		return queueworker.Permanent(errors.New("subscriber url is not usable"))
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "feedbridge-events")
	req.Header.Set(SignatureHeader, Signature([]byte(key), s.now(), it.Body))
	req.Header.Set(EventIDHeader, string(it.ID))
	resp, err := s.client.Do(req)
	if err != nil {
		return plainError(err)
	}
	// Read a little of the answer so the connection can be reused, never more.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	err = fmt.Errorf("answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		err = fmt.Errorf("answered %d %s: redirects are followed only as 307 or 308 to the same host",
			resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	if d := retryAfter(resp.Header.Get("Retry-After"), s.now()); d > 0 {
		return queueworker.RetryAfter(err, d)
	}
	return err
}

// plainError drops the URL from a client error: its query may carry a token.
func plainError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("no answer in time: %w", err)
	}
	return err
}

// maxRetryAfter bounds the wait a subscriber may ask for; the item's retry_for still bounds the whole.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads a Retry-After header: seconds or an HTTP date; 0 when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.Atoi(v); err == nil {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}
