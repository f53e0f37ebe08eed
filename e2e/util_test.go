package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

func decode(resp *http.Response, out any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// listAll pages through every record of a type and returns how often each id was seen.
func listAll(t *testing.T, d *daemon, key, typ string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	next := ""
	for page := 0; page < 10000; page++ {
		q := url.Values{"record_type": {typ}, "limit": {"1000"}}
		if next != "" {
			q.Set("cursor", next)
		}
		var recs []struct{ ID string }
		resp := do(t, "GET", d.url("/api/records?"+q.Encode()), key, "", &recs)
		if resp.StatusCode != 200 {
			t.Fatalf("list: %d", resp.StatusCode)
		}
		for _, r := range recs {
			seen[r.ID]++
		}
		next = resp.Header.Get("X-Next-Cursor")
		if next == "" {
			return seen
		}
	}
	t.Fatal("paging did not terminate")
	return nil
}
