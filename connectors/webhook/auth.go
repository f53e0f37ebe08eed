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
)

// secretError is a secret that could not be read (a missing file): feedbridge's fault, answered 500.
type secretError struct{ err error }

func (e *secretError) Error() string { return "webhook: " + e.err.Error() }
func (e *secretError) Unwrap() error { return e.err }

// authenticate checks the request against the entry before anything of the body is parsed. The secret is
// read at each request, so a rotated file: secret applies at once.
func (e *entrySpec) authenticate(h http.Header, body []byte, now time.Time) error {
	if strings.EqualFold(e.Auth, AuthBearer) {
		want, err := e.Token.Required()
		if err != nil {
			return &secretError{err}
		}
		// Trimmed of ASCII whitespace only: a non-breaking space after "Bearer" is part of the token.
		got, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
		got = connectors.TrimASCII(got)
		if !ok || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			return errBadToken
		}
		return nil
	}
	sig := connectors.TrimASCII(h.Get(e.SignatureHeader))
	if sig == "" {
		return errNoSignature
	}
	sig, ok := strings.CutPrefix(sig, e.prefix)
	if !ok {
		return errBadSignature
	}
	var got []byte
	var err error
	if e.base64 {
		got, err = base64.StdEncoding.DecodeString(sig)
	} else {
		got, err = hex.DecodeString(sig)
	}
	if err != nil {
		return errBadSignature
	}
	var stamp string
	if e.TimestampHeader != "" {
		stamp = connectors.TrimASCII(h.Get(e.TimestampHeader))
		t, err := parseStamp(stamp)
		if err != nil {
			return errNoTimestamp
		}
		if d := now.Sub(t); d > e.TimestampWindow || d < -e.TimestampWindow {
			return errStale
		}
	}
	key, err := e.Secret.Required()
	if err != nil {
		return &secretError{err}
	}
	if !hmac.Equal(got, e.sign([]byte(key), stamp, body)) {
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
