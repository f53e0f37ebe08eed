// Package core holds feedbridge's domain: workspaces, API keys, records and their lookups, the rules of the
// public contract, and the Store interface that every backend implements. The HTTP API and every connector
// go through Service; nothing else writes the store. Core knows nothing of HTTP, Slack, IMAP or CSV.
package core
