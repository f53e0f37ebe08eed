package csvimport

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"time"
)

// maxExternalIDKey is the longest external id kept verbatim in a dedup key; longer ones are hashed.
const maxExternalIDKey = 128

// dedupKey names a row for the store's once-only rule. With an external id it is
// "csv:<connector>:<id>": one record per entry and id. Without, it is a hash of what identifies the
// feedback (title, description, customer email, created time), shared by every entry of the workspace
// since the same text from the same customer at the same time is the same feedback whichever way it came.
// A row without created_at hashes an empty time, not the import time, so importing it again matches.
func dedupKey(connector string, f Fields) string {
	if f.ExternalID != "" {
		id := f.ExternalID
		if len(id) > maxExternalIDKey {
			sum := sha256.Sum256([]byte(id))
			id = "sha256:" + hex.EncodeToString(sum[:])
		}
		return "csv:" + connector + ":" + id
	}
	created := ""
	if !f.CreatedAt.IsZero() {
		created = f.CreatedAt.UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano)
	}
	h := sha256.New()
	for _, part := range []string{f.Title, f.Description, strings.ToLower(f.CustomerEmail), created} {
		// Length prefixes keep ("ab", "c") and ("a", "bc") apart.
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	return "csv:hash:" + hex.EncodeToString(h.Sum(nil)[:16])
}
