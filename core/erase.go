package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"strings"
	"unicode"
)

// Removed is what an erased address or name becomes in every text that quoted it.
const Removed = "[removed]"

// ErasedKeyPrefix starts a dedup key that erasure replaced by its keyed hash.
const ErasedKeyPrefix = "erased:"

// ErasureSecret is the StoreSecret that keys erased dedup keys.
const ErasureSecret = "erasure"

// EraseChunk is how many records one erasure transaction rewrites: small enough that the writes of other
// workspaces never wait long behind it.
const EraseChunk = 100

// ErasedDedupKey is what a dedup key becomes when the customer it was built from is erased: a keyed hash,
// so that the same input delivered again still finds it (the stores look up both forms) while the key no
// longer tells anyone the address, and an unkeyed hash of guessed inputs cannot be matched against it.
func ErasedDedupKey(secret []byte, ws ID, key string) string {
	if key == "" || strings.HasPrefix(key, ErasedKeyPrefix) {
		return key
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ws))
	m.Write([]byte{0})
	m.Write([]byte(key))
	return ErasedKeyPrefix + hex.EncodeToString(m.Sum(nil))
}

// Erasure names the customer to erase from a workspace: the address as given and its lower-cased key.
type Erasure struct {
	Email    string
	EmailKey string
}

// Forgotten is the outcome of an erasure.
type Forgotten struct {
	Records  int `json:"records"`
	Contacts int `json:"contacts"`
}

// ForgetContact erases one customer from ws. The store does it in short chunks, each its own transaction,
// so running it again after an interruption finishes the job.
func (s *Service) ForgetContact(ctx context.Context, ws ID, email string) (Forgotten, error) {
	if strings.TrimSpace(email) == "" {
		return Forgotten{}, invalid("email", "email is required", "Give the customer's address in email.")
	}
	addr, err := ParseEmail(email)
	if err != nil {
		return Forgotten{}, invalid("email", "invalid email", "email must be one bare address such as jane@acme.com.")
	}
	f, err := s.store.ForgetContact(ctx, ws, Erasure{Email: addr, EmailKey: strings.ToLower(addr)})
	if err != nil {
		return Forgotten{}, fmt.Errorf("forget contact: %w", err)
	}
	// The failed rows kept with import runs are copies of input, not records: each one that mentions the
	// address goes whole (one that mentions a longer address ending in it too, which costs only a copy).
	if _, err := s.store.ForgetFailedRowsMentioning(ctx, ws, strings.ToLower(addr)); err != nil {
		return Forgotten{}, fmt.Errorf("forget contact: %w", err)
	}
	return f, nil
}

// Scrubber replaces a customer's address (any case) and full name in text with Removed. A match must stand
// alone: "jane@acme.com" inside "mary.jane@acme.com" is another person's address and stays.
type Scrubber struct {
	addr  []rune
	names [][]rune
}

// NewScrubber scrubs address and, when it is not blank, name.
func NewScrubber(address, name string) *Scrubber {
	sc := &Scrubber{addr: []rune(strings.TrimSpace(address))}
	if n := strings.Join(strings.Fields(name), " "); n != "" {
		sc.names = append(sc.names, []rune(n))
	}
	return sc
}

// Needles are the lower-cased texts a store looks for to find candidates; Text decides what really matches.
func (sc *Scrubber) Needles() []string {
	out := []string{strings.ToLower(string(sc.addr))}
	for _, n := range sc.names {
		out = append(out, strings.ToLower(string(n)))
	}
	return out
}

// Text scrubs plain text.
func (sc *Scrubber) Text(s string) string {
	if s == "" {
		return s
	}
	s = replaceStandalone(s, sc.addr, addrRune)
	for _, n := range sc.names {
		s = replaceStandalone(s, n, wordRune)
	}
	return s
}

// HTML scrubs sanitized HTML, where a name can appear escaped ("O&#39;Brien").
func (sc *Scrubber) HTML(s string) string {
	s = sc.Text(s)
	for _, n := range sc.names {
		if esc := html.EscapeString(string(n)); esc != string(n) {
			s = replaceStandalone(s, []rune(esc), wordRune)
		}
	}
	return s
}

// Mentions reports whether Text would change s.
func (sc *Scrubber) Mentions(s string) bool { return sc.Text(s) != s }

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// addrRune is a rune that would make the text around a match part of a longer address.
func addrRune(r rune) bool { return wordRune(r) || strings.ContainsRune(".-_+%@", r) }

// replaceStandalone replaces each case-insensitive occurrence of needle that no joined rune continues.
// A '.' after a match ends a sentence unless more of an address follows it.
func replaceStandalone(s string, needle []rune, joined func(rune) bool) string {
	if len(needle) == 0 {
		return s
	}
	in := []rune(s)
	var b strings.Builder
	changed := false
	for i := 0; i < len(in); {
		if i+len(needle) <= len(in) && foldedEqual(in[i:i+len(needle)], needle) && alone(in, i, i+len(needle), joined) {
			b.WriteString(Removed)
			i += len(needle)
			changed = true
			continue
		}
		b.WriteRune(in[i])
		i++
	}
	if !changed {
		return s
	}
	return b.String()
}

func alone(in []rune, start, end int, joined func(rune) bool) bool {
	if start > 0 && joined(in[start-1]) {
		return false
	}
	if end < len(in) && joined(in[end]) {
		if in[end] != '.' || (end+1 < len(in) && wordRune(in[end+1])) {
			return false
		}
	}
	return true
}

func foldedEqual(a, b []rune) bool {
	for i := range a {
		if !runeFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

func runeFold(a, b rune) bool {
	if a == b {
		return true
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

// ErasedFields are the parts of a stored record that an erasure rewrites.
type ErasedFields struct {
	Title, DescriptionHTML, Description, SearchText string
	CustomerEmail, Reporter, DedupKey               string
}

// Scrub rewrites f for the customer: credits says the record is filed under them and so loses its
// customer_email. Whatever quoted them says Removed, the search text follows the new text, and the dedup key
// of a record that credited or named them becomes its keyed hash. It reports whether f changed.
func (sc *Scrubber) Scrub(f *ErasedFields, credits bool, secret []byte, ws ID) bool {
	old := *f
	f.Title = sc.Text(f.Title)
	f.DescriptionHTML = sc.HTML(f.DescriptionHTML)
	f.Description = sc.Text(f.Description)
	f.Reporter = sc.Text(f.Reporter)
	if credits || strings.EqualFold(strings.TrimSpace(f.CustomerEmail), string(sc.addr)) {
		f.CustomerEmail = ""
	}
	if f.Title != old.Title || f.Description != old.Description {
		f.SearchText = Fold(f.Title + "\n" + f.Description)
	}
	if f.CustomerEmail != old.CustomerEmail || f.Reporter != old.Reporter || credits ||
		strings.Contains(strings.ToLower(f.DedupKey), strings.ToLower(string(sc.addr))) {
		f.DedupKey = ErasedDedupKey(secret, ws, f.DedupKey)
	}
	return *f != old
}
