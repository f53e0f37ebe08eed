package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// resp is a finished response with its body read.
type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r *resp) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// fields returns the body as a JSON object.
func (r *resp) object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.decode(t, &m)
	return m
}

// errorCode returns the error body's "error", failing unless the body is the contract's error shape.
func (r *resp) errorCode(t testing.TB) string {
	t.Helper()
	m := r.object(t)
	if m["success"] != false || m["message"] == "" || m["error"] == nil {
		t.Fatalf("not an error body: %s", r.body)
	}
	return m["error"].(string)
}

// req describes one request; key "" means the env's key, "-" none.
type req struct {
	method, path string
	body         any // string: raw; nil: none; anything else is marshalled
	key          string
	header       map[string]string
}

// do sends r and checks what every response must satisfy: X-Request-ID, the JSON content type under
// /api, the rate-limit headers after authentication, and the OpenAPI document.
func (e *env) do(r req) *resp {
	e.t.Helper()
	var body io.Reader
	switch b := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		must(e.t, err)
		body = bytes.NewReader(buf)
	}
	hr, err := http.NewRequest(r.method, e.srv.URL+r.path, body)
	must(e.t, err)
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	switch r.key {
	case "":
		hr.Header.Set("X-API-Key", e.key)
	case "-":
	default:
		hr.Header.Set("X-API-Key", r.key)
	}
	for k, v := range r.header {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(hr)
	must(e.t, err)
	defer res.Body.Close()
	out := &resp{status: res.StatusCode, header: res.Header}
	out.body, err = io.ReadAll(res.Body)
	must(e.t, err)
	if res.Header.Get("X-Request-ID") == "" {
		e.t.Errorf("%s %s: no X-Request-ID", r.method, r.path)
	}
	// A 204 has no body, so no content type either.
	if strings.HasPrefix(r.path, "/api/") && r.method != http.MethodHead && res.StatusCode != http.StatusNoContent {
		if ct := res.Header.Get("Content-Type"); ct != contentTypeJSON {
			e.t.Errorf("%s %s: Content-Type %q", r.method, r.path, ct)
		}
	}
	e.spec.check(e.t, hr, out)
	return out
}

func (e *env) get(path string) *resp { e.t.Helper(); return e.do(req{method: "GET", path: path}) }

func (e *env) post(path string, body any) *resp {
	e.t.Helper()
	return e.do(req{method: "POST", path: path, body: body})
}

// want fails unless the response has the status.
func (r *resp) want(t testing.TB, status int) *resp {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	return r
}

// listAll follows the Link headers to the end and returns every id in order.
func (e *env) listAll(path string) []string {
	e.t.Helper()
	var ids []string
	for pages := 0; path != ""; pages++ {
		if pages > 10_000 {
			e.t.Fatal("paging does not terminate")
		}
		r := e.get(path).want(e.t, 200)
		var recs []map[string]any
		r.decode(e.t, &recs)
		for _, rec := range recs {
			ids = append(ids, rec["id"].(string))
		}
		path = nextPath(e.t, r)
	}
	return ids
}

// nextPath reads the Link header's target ("" on the last page) and checks it agrees with X-Next-Cursor.
func nextPath(t testing.TB, r *resp) string {
	t.Helper()
	link, cur := r.header.Get("Link"), r.header.Get("X-Next-Cursor")
	if (link == "") != (cur == "") {
		t.Fatalf("Link %q and X-Next-Cursor %q disagree", link, cur)
	}
	if link == "" {
		return ""
	}
	target, ok := strings.CutPrefix(link, "<")
	target, rest, ok2 := strings.Cut(target, ">")
	if !ok || !ok2 || rest != `; rel="next"` || !strings.Contains(target, "cursor="+cur) {
		t.Fatalf("bad Link %q (cursor %q)", link, cur)
	}
	return target
}

func repeat(s string, n int) string { return strings.Repeat(s, n) }

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }
