package slack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	slackgo "github.com/slack-go/slack"

	"github.com/feedbridge/feedbridge/connectors"
)

// maxBody bounds what is read before the signature is known to be good; Slack's payloads, a modal's
// view included, stay far below it.
const maxBody = 1 << 20

// Verification failures. All but errTooLarge answer 401, and none says which secret was tried.
var (
	errMissingHeaders = errors.New("slack: missing X-Slack-Signature or X-Slack-Request-Timestamp")
	errStale          = errors.New("slack: request timestamp is more than 5 minutes off")
	errBadSignature   = errors.New("slack: invalid request signature")
	errTooLarge       = errors.New("slack: request body too large")
	// errTooManyFailures is not checked at all: the address failed too often (answered 429).
	errTooManyFailures = errors.New("slack: too many failed signatures from this address")
)

// verifyBody reads r's raw body (within guard's budget of unsigned reads) and checks Slack's v0 signature against each secret. It returns the body,
// put back on r for the form parser, and the indexes of the secrets that signed it: one Slack app signs
// for every team it is installed in, so several entries may share a secret and are told apart by team.
// A secret that cannot be read, or reads blank, signs nothing (anyone can sign with an empty key) and is
// reported to unusable, so one broken entry never stops the others from being verified.
func verifyBody(w http.ResponseWriter, r *http.Request, secrets []connectors.Secret, guard *connectors.Guard, unusable func(i int, err error)) ([]byte, []int, error) {
	if r.Header.Get("X-Slack-Signature") == "" || r.Header.Get("X-Slack-Request-Timestamp") == "" {
		return nil, nil, errMissingHeaders
	}
	body, err := guard.ReadBody(w, r, maxBody)
	if errors.Is(err, connectors.ErrBusy) {
		return nil, nil, err
	}
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, nil, errTooLarge
		}
		return nil, nil, fmt.Errorf("slack: read body: %w", err)
	}
	var matched []int
	checked := make(map[connectors.Secret]bool, len(secrets))
	for i, s := range secrets {
		ok, seen := checked[s]
		if !seen {
			// Read at each request, so a rotated secret file is used at once.
			secret, err := s.Required()
			if err != nil {
				if unusable != nil {
					unusable(i, fmt.Errorf("slack: signing_secret: %w", err))
				}
				continue
			}
			if ok, err = signedWith(r.Header, secret, body); err != nil {
				return nil, nil, err
			}
			checked[s] = ok
		}
		if ok {
			matched = append(matched, i)
		}
	}
	if len(matched) == 0 {
		return nil, nil, errBadSignature
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, matched, nil
}

// signedWith reports whether secret signed body. A stale timestamp is an error for every secret alike.
func signedWith(h http.Header, secret string, body []byte) (bool, error) {
	v, err := slackgo.NewSecretsVerifier(h, secret)
	switch {
	case errors.Is(err, slackgo.ErrExpiredTimestamp):
		return false, errStale
	case err != nil:
		// A malformed signature or timestamp: the library's error text is not worth more to the caller.
		return false, errBadSignature
	}
	if _, err := v.Write(body); err != nil {
		return false, fmt.Errorf("slack: hash body: %w", err)
	}
	return v.Ensure() == nil, nil
}
