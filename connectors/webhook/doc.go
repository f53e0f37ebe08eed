// Package webhook is the inbound-webhook connector: tools that push events (helpdesks, form builders,
// CRMs, Zapier or Make) POST JSON to /hooks/<name>. Each entry checks the sender's HMAC signature or bearer
// token before reading the body, maps JSON paths of the payload to record fields (one record per element
// of an array), and creates each item once per external id. Presets hold the settings of common senders.
package webhook
