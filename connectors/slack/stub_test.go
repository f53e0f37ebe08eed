package slack

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// slackStub stands in for https://slack.com/api/ and for response_url.
type slackStub struct {
	srv     *httptest.Server
	mu      sync.Mutex
	calls   []stubCall
	replies map[string][]stubReply // by path prefix; the last reply repeats
}

type stubCall struct {
	Path string
	Auth string
	Form url.Values     // form-encoded Web API calls
	JSON map[string]any // JSON calls: views.open, response_url
}

type stubReply struct {
	status int
	body   string
}

func newSlackStub(t testing.TB) *slackStub {
	s := &slackStub{replies: map[string][]stubReply{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *slackStub) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	c := stubCall{Path: r.URL.Path, Auth: r.Header.Get("Authorization")}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(raw, &c.JSON)
	} else {
		c.Form, _ = url.ParseQuery(string(raw))
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	reply := stubReply{200, `{"ok":true}`}
	for prefix, q := range s.replies {
		if strings.HasPrefix(r.URL.Path, prefix) && len(q) > 0 {
			reply = q[0]
			if len(q) > 1 {
				s.replies[prefix] = q[1:]
			}
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(reply.status)
	io.WriteString(w, reply.body)
}

// reply queues answers for paths starting with prefix.
func (s *slackStub) reply(prefix string, rs ...stubReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies[prefix] = rs
}

// wait returns the calls to paths with the prefix once there are at least n, failing after 5 s.
func (s *slackStub) wait(t testing.TB, prefix string, n int) []stubCall {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := s.callsTo(prefix)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d calls to %s, got %d: %+v", n, prefix, len(got), got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (s *slackStub) callsTo(prefix string) []stubCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []stubCall
	for _, c := range s.calls {
		if strings.HasPrefix(c.Path, prefix) {
			out = append(out, c)
		}
	}
	return out
}
