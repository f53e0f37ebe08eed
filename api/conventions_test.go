package api

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// Content types, bad bodies, limits, request ids, 404/405 and the error body.

func TestContentType(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		body := `{"title":"From a form"}`
		cases := []struct {
			name, ct string
			want     int
		}{
			{"json", "application/json", 201},
			{"json with charset", "application/json; charset=utf-8", 201},
			{"json upper case", "Application/JSON", 201},
			{"text", "text/plain", 415},
			{"form", "application/x-www-form-urlencoded", 415},
			{"json suffix type", "application/problem+json", 415},
			{"missing", "", 415},
			{"garbage", ";;;", 415},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				for _, path := range []string{"/api/records/feedback", "/api/records/idea"} {
					r := e.do(req{method: "POST", path: path, body: body, header: map[string]string{"Content-Type": c.ct}})
					r.want(t, c.want)
					if c.want == 415 && r.errorCode(t) != "unsupported media type" {
						t.Errorf("error %q", r.errorCode(t))
					}
				}
			})
		}
		// Success bodies are JSON with the charset parameter (checked for every response by env.do).
		if r := e.get("/api/records/verify"); r.header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("content type %q", r.header.Get("Content-Type"))
		}
	})
}

func TestBadBodies(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		cases := []struct {
			name, body, code string
		}{
			{"empty", ``, "invalid json"},
			{"blank", "  \n", "invalid json"},
			{"syntax", `{"title": "x",}`, "invalid json"},
			{"truncated", `{"title": "x"`, "invalid json"},
			{"not an object", `["title"]`, "invalid json"},
			{"a string", `"title"`, "invalid json"},
			{"null", `null`, "invalid json"},
			{"trailing object", `{"title":"a"}{"title":"b"}`, "invalid json"},
			{"trailing garbage", `{"title":"a"} x`, "invalid json"},
			{"unknown field", `{"title":"a","tag":"x"}`, `unknown field "tag"`},
			{"field in other case", `{"Title":"a"}`, `unknown field "Title"`},
			{"title twice", `{"title":"a","title":"b"}`, `duplicate field "title"`},
			{"description twice", `{"title":"a","description":"x","description":"y"}`, `duplicate field "description"`},
			{"title number", `{"title":5}`, `invalid type for field "title"`},
			{"title object", `{"title":{"a":1}}`, `invalid type for field "title"`},
			{"description bool", `{"title":"a","description":true}`, `invalid type for field "description"`},
			{"source array", `{"title":"a","source":["API"]}`, `invalid type for field "source"`},
			{"email number", `{"title":"a","customer_email":1}`, `invalid type for field "customer_email"`},
			{"title missing", `{}`, "title is required"},
			{"title null", `{"title":null}`, "title is required"},
			{"title blank", `{"title":"  \t "}`, "title is required"},
			{"title too long", sprintf(`{"title":%q}`, repeat("é", 501)), "title is too long"},
			{"description too long", sprintf(`{"title":"a","description":%q}`, repeat("d", 100_001)), "description is too long"},
			{"customer_name too long", sprintf(`{"title":"a","customer_email":"a@b.com","customer_name":%q}`, repeat("n", 201)), "customer_name is too long"},
			{"email display form", `{"title":"a","customer_email":"Jane <jane@acme.com>"}`, "invalid customer_email"},
			{"email list", `{"title":"a","customer_email":"jane@acme.com, joe@acme.com"}`, "invalid customer_email"},
			{"email no at", `{"title":"a","customer_email":"jane.acme.com"}`, "invalid customer_email"},
		}
		for _, path := range []string{"/api/records/feedback", "/api/records/idea"} {
			for _, c := range cases {
				t.Run(path+"/"+c.name, func(t *testing.T) {
					r := e.post(path, c.body).want(t, 400)
					if got := r.errorCode(t); got != c.code {
						t.Errorf("error %q, want %q (%s)", got, c.code, r.body)
					}
				})
			}
		}
		idea := []struct{ name, body, code string }{
			{"tags not array", `{"title":"a","tags":"x"}`, `invalid type for field "tags"`},
			{"tags of numbers", `{"title":"a","tags":[1]}`, `invalid type for field "tags"`},
			{"record_type number", `{"title":"a","record_type":1}`, `invalid type for field "record_type"`},
			{"record_type Feature", `{"title":"a","record_type":"Feature"}`, "invalid record_type"},
			{"record_type bogus", `{"title":"a","record_type":"Bogus"}`, "invalid record_type"},
			{"malformed product", `{"title":"a","product":"123"}`, "invalid product id"},
			{"malformed user", `{"title":"a","user":"ZZZZZZZZZZZZZZZZZZZZZZZZ"}`, "invalid user id"},
			{"malformed tag", `{"title":"a","tags":["6b02aa68e620474649935E43"]}`, "invalid tag id"},
			{"too many tags", sprintf(`{"title":"a","tags":[%s]}`, strings.TrimSuffix(repeat(`"6b02aa68e620474649935e43",`, 51), ",")), "too many tags"},
			{"unknown product", `{"title":"a","product":"6b02aa68e620474649935e43"}`, `unknown product id "6b02aa68e620474649935e43"`},
		}
		for _, c := range idea {
			t.Run("idea/"+c.name, func(t *testing.T) {
				r := e.post("/api/records/idea", c.body).want(t, 400)
				if got := r.errorCode(t); got != c.code {
					t.Errorf("error %q, want %q", got, c.code)
				}
			})
		}
		// Nothing above was half-written.
		for _, rt := range []string{"Idea", "Feedback"} {
			if ids := e.listAll("/api/records?record_type=" + rt); len(ids) != 0 {
				t.Errorf("%d %s records after refused requests", len(ids), rt)
			}
		}
	})
}

func TestLimitsAtTheEdge(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		r := e.post("/api/records/feedback", map[string]any{
			"title": "  " + repeat("é", 500) + "  ", "description": repeat("d", 100_000),
			"customer_email": "a@acme.com", "customer_name": repeat("n", 200),
		}).want(t, 201)
		if got := r.object(t)["title"].(string); got != repeat("é", 500) {
			t.Errorf("title not trimmed: %d characters", len([]rune(got)))
		}
		tags := make([]string, 0, 50)
		for i := 0; i < 50; i++ {
			tags = append(tags, string(e.tags[i%len(e.tags)].ID)) // repeats collapse
		}
		e.post("/api/records/idea", map[string]any{"title": "fifty tags", "tags": tags}).want(t, 201)
	})
}

func TestBodyTooLarge(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		big := `{"title":"a","description":"` + repeat("x", MaxBodyBytes) + `"}`
		for _, path := range []string{"/api/records/feedback", "/api/records/idea"} {
			// With Content-Length, refused before reading.
			r := e.post(path, big).want(t, 413)
			if r.errorCode(t) != "request body too large" {
				t.Errorf("error %q", r.errorCode(t))
			}
			// Chunked (no Content-Length): refused while reading.
			hr, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(big))
			hr.ContentLength = -1
			hr.Header.Set("Content-Type", "application/json")
			hr.Header.Set("X-API-Key", e.key)
			res, err := http.DefaultClient.Do(hr)
			must(t, err)
			res.Body.Close()
			if res.StatusCode != 413 {
				t.Errorf("chunked: status %d", res.StatusCode)
			}
		}
		if ids := e.listAll("/api/records?record_type=Feedback"); len(ids) != 0 {
			t.Errorf("oversize body created %d records", len(ids))
		}
	})
}

func TestRequestID(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		paths := []req{
			{method: "GET", path: "/api/records/verify"},
			{method: "GET", path: "/api/records/verify", key: "-"},
			{method: "GET", path: "/api/nowhere"},
			{method: "DELETE", path: "/api/records"},
			{method: "GET", path: "/healthz"},
			{method: "POST", path: "/api/records/feedback", body: `{}`},
		}
		for _, p := range paths {
			p.header = map[string]string{"X-Request-ID": "trace-42"}
			if got := e.do(p).header.Get("X-Request-ID"); got != "trace-42" {
				t.Errorf("%s %s: X-Request-ID %q, want the echo", p.method, p.path, got)
			}
		}
		hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
		a, b := e.get("/healthz").header.Get("X-Request-ID"), e.get("/healthz").header.Get("X-Request-ID")
		if !hex32.MatchString(a) || a == b {
			t.Errorf("generated ids %q %q", a, b)
		}
		// An id that could forge a log line is replaced, not echoed.
		r := e.do(req{method: "GET", path: "/healthz", header: map[string]string{"X-Request-ID": repeat("x", 200)}})
		if !hex32.MatchString(r.header.Get("X-Request-ID")) {
			t.Errorf("oversize request id echoed: %q", r.header.Get("X-Request-ID"))
		}
		if !strings.Contains(e.logs.String(), `"request_id":"trace-42"`) {
			t.Error("request id missing from the log")
		}
	})
}

func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		cases := []struct {
			method, path string
			status       int
			allow        string
		}{
			{"GET", "/api/nowhere", 404, ""},
			{"GET", "/api/records/verify/extra", 404, ""},
			{"GET", "/api/", 404, ""},
			{"POST", "/api/records/verify", 405, "GET, HEAD"},
			{"DELETE", "/api/records", 405, "GET, HEAD"},
			{"PUT", "/api/records/6b02aa68e620474649935e43", 405, "GET, HEAD, PATCH, DELETE"},
			{"DELETE", "/api/records/feedback", 405, "POST"},
			{"PATCH", "/api/records/verify", 405, "GET, HEAD"},
			{"GET", "/api/records/6b02aa68e620474649935e43/merge", 405, "POST"},
			{"POST", "/api/records/6b02aa68e620474649935e43/links/6b02aa68e620474649935e44", 405, "PUT, DELETE"},
			{"GET", "/api/records/feedback", 405, "POST"},
			{"GET", "/api/records/idea", 405, "POST"},
			{"PUT", "/api/records/idea", 405, "POST"},
			{"DELETE", "/api/imports/6b02aa68e620474649935e43", 405, "GET, HEAD"},
			{"POST", "/api/openapi.json", 405, "GET, HEAD"},
		}
		for _, c := range cases {
			t.Run(c.method+" "+c.path, func(t *testing.T) {
				r := e.do(req{method: c.method, path: c.path, body: "{}"}).want(t, c.status)
				want := map[int]string{404: "not found", 405: "method not allowed"}[c.status]
				if r.errorCode(t) != want {
					t.Errorf("error %q", r.errorCode(t))
				}
				if got := r.header.Get("Allow"); got != c.allow {
					t.Errorf("Allow %q, want %q", got, c.allow)
				}
			})
		}
	})
}

func TestInternalErrorsCarryAnErrorID(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{extra: func(mux *http.ServeMux) {
			mux.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) {
				panic("secret detail /etc/passwd SELECT * FROM keys")
			})
		}})
		r := e.do(req{method: "GET", path: "/boom"}).want(t, 500)
		m := r.object(t)
		id, _ := m["error_id"].(string)
		if m["error"] != "internal error" || id == "" {
			t.Fatalf("body %s", r.body)
		}
		if strings.Contains(string(r.body), "passwd") || strings.Contains(string(r.body), "SELECT") || strings.Contains(string(r.body), "goroutine") {
			t.Errorf("internal detail leaked: %s", r.body)
		}
		if !strings.Contains(e.logs.String(), `"error_id":"`+id+`"`) {
			t.Errorf("error_id %s not in the log:\n%s", id, e.logs.String())
		}
		// The store failing is a 503 with an error_id, and nothing of the store's text reaches the client.
		must(t, e.store.Close())
		r = e.post("/api/records/feedback", map[string]any{"title": "lost"})
		if r.status != 503 && r.status != 500 {
			t.Fatalf("closed store: status %d", r.status)
		}
		if m := r.object(t); m["error_id"] == "" || strings.Contains(string(r.body), "sql") {
			t.Errorf("body %s", r.body)
		}
	})
}

func TestMalformedPathIDs(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		for _, p := range []string{
			"/api/records/123", "/api/records/6B02AA68E620474649935E43", "/api/records/6b02aa68e620474649935e4",
			"/api/records/6b02aa68e620474649935e43a", "/api/records/g" + repeat("0", 23), "/api/records/zzz/insights",
			"/api/imports/xyz", "/api/imports/%20" + repeat("0", 23),
		} {
			if r := e.get(p).want(t, 400); r.errorCode(t) != "invalid id" {
				t.Errorf("%s: error %q", p, r.errorCode(t))
			}
		}
	})
}
