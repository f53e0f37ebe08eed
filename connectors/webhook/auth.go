package webhook

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
)

// Authentication failures; all answer 401 and none says more than which check failed.
var (
	errNoSignature  = errors.New("webhook: missing signature header")
	errBadSignature = errors.New("webhook: invalid signature")
	errNoTimestamp  = errors.New("webhook: missing or unreadable timestamp header")
	errStale        = errors.New("webhook: timestamp outside the allowed window")
	errBadToken     = errors.New("webhook: missing or invalid bearer token")
	// errTooManyFailures is not checked at all: the address failed too often (answered 429).
	errTooManyFailures = errors.New("webhook: too many failed authentications from this address")
)

// secretError is a secret that could not be read (a missing file): feedbridge's fault, answered 500.
type secretError struct{ err error }

func (e *secretError) Error() string { return "webhook: " + e.err.Error() }
func (e *secretError) Unwrap() error { return e.err }

// presented is what a request's headers claim before its body is read: the signature and signed time.
type presented struct {
	sig   []byte
	stamp string
}

// checkHeaders authenticates what the headers alone can: a bearer token in full, and for a signature its
// presence, encoding and time window, so that most bad requests are refused before a byte of their body is
// read. The secrets are read at each request, so a rotated file: secret applies at once.
func (e *entrySpec) checkHeaders(h http.Header, now time.Time) (presented, error) {
	if strings.EqualFold(e.Auth, AuthBearer) {
		want, err := e.Token.Required()
		if err != nil {
			return presented{}, &secretError{err}
		}
		// Trimmed of ASCII whitespace only: a non-breaking space after "Bearer" is part of the token.
		got, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
		got = connectors.TrimASCII(got)
		if !ok || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			return presented{}, errBadToken
		}
		return presented{}, nil
	}
	sig := connectors.TrimASCII(h.Get(e.SignatureHeader))
	if sig == "" {
		return presented{}, errNoSignature
	}
	sig, ok := strings.CutPrefix(sig, e.prefix)
	if !ok {
		return presented{}, errBadSignature
	}
	var p presented
	var err error
	if e.base64 {
		p.sig, err = base64.StdEncoding.DecodeString(sig)
	} else {
		p.sig, err = hex.DecodeString(sig)
	}
	if err != nil {
		return presented{}, errBadSignature
	}
	if e.TimestampHeader != "" {
		p.stamp = connectors.TrimASCII(h.Get(e.TimestampHeader))
		t, err := parseStamp(p.stamp)
		if err != nil {
			return presented{}, errNoTimestamp
		}
		if d := now.Sub(t); d > e.TimestampWindow || d < -e.TimestampWindow {
			return presented{}, errStale
		}
	}
	return p, nil
}

// bodySigned reports whether the body needs reading before the request is known to be genuine.
func (e *entrySpec) bodySigned() bool { return !strings.EqualFold(e.Auth, AuthBearer) }

// checkBody checks the signature the headers presented against the body (nothing to do for a bearer
// token, which checkHeaders settled).
func (e *entrySpec) checkBody(p presented, body []byte) error {
	if !e.bodySigned() {
		return nil
	}
	key, err := e.Secret.Required()
	if err != nil {
		return &secretError{err}
	}
	if !hmac.Equal(p.sig, e.sign([]byte(key), p.stamp, body)) {
		return errBadSignature
	}
	return nil
}

// sign computes the signature of stamp followed by body.
func (e *entrySpec) sign(key []byte, stamp string, body []byte) []byte {
	newHash := sha256.New
	if e.sha1 {
		newHash = func() hash.Hash { return sha1.New() }
	}
	m := hmac.New(newHash, key)
	m.Write([]byte(stamp))
	m.Write(body)
	return m.Sum(nil)
}

// parseStamp reads a signing time: Unix seconds or RFC 3339.
func parseStamp(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errNoTimestamp
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp: %w", err)
	}
	return t, nil
}
