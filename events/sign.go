// Package events delivers the events of record changes to the configured subscribers: signed POSTs of
// the bodies the stores wrote to the outbox in each change's transaction.
package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Header names of a delivery.
const (
	SignatureHeader = "X-Feedbridge-Signature"
	EventIDHeader   = "X-Feedbridge-Event-Id"
)

// Signature is the X-Feedbridge-Signature value of body sent at t: the unix time and the hex HMAC-SHA256,
// keyed by the subscriber's secret, of "<unix time>.<body>". Signing the time with the body lets a
// subscriber refuse an old delivery replayed by someone who captured it.
func Signature(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}
