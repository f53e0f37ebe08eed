package api

import (
	"net/url"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// A listing takes at most 50 tags values (a record carries no more): more is a 400 naming the limit,
// never the store's failure.
func TestListTagsCap(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		query := func(n int) string {
			v := url.Values{"record_type": {"Feedback"}}
			for range n {
				v.Add("tags", string(core.NewID()))
			}
			return "/api/records?" + v.Encode()
		}
		e.get(query(50)).want(t, 200)
		for _, n := range []int{51, 1000} {
			r := e.get(query(n)).want(t, 400)
			if code := r.errorCode(t); code != "too many tags" {
				t.Errorf("%d tags: error %q", n, code)
			}
			if !strings.Contains(string(r.body), "at most 50 tags") {
				t.Errorf("%d tags: %s", n, r.body)
			}
		}
	})
}
