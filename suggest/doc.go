// Package suggest ranks a workspace's Ideas and Features against a text: the feedback that may ask for
// one of them, or an idea that may duplicate one. It is offline and deterministic: BM25 over stemmed words,
// a product-vocabulary concept map that lets "night theme" find "dark mode", and spelling correction
// against the index's own vocabulary for typos. Index keeps one in-memory index per workspace, loaded from
// the store and refreshed incrementally; it implements core.Matcher.
package suggest
