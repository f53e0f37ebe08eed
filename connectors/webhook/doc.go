// Package webhook is the inbound-webhook connector: tools that push events (helpdesks, form builders,
// CRMs, Zapier or Make) POST JSON to /hooks/<name>. Each entry checks the sender's HMAC signature or bearer
// token before reading the body, maps JSON paths of the payload to record fields (one record per element
// of an array), and creates each item once per external id. Presets hold the settings of common senders.
//
// A delivery is answered 201 when its records are written before the answer, and 202 when it is queued:
// when it holds more than queue_over items, or when its records are not written within queue_after. A
// queued delivery is stored as received in one write, after authentication and the mapping's checks, and
// the entry's worker writes it exactly once (see queue.go).
package webhook
