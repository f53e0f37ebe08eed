package insights

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

const testKey = "sk-test-0123456789abcdef"

// fakeLLM stands in for a chat-completions endpoint. It checks every request strictly and answers from a
// script of responses, one per request.
type fakeLLM struct {
	t       *testing.T
	mu      sync.Mutex
	script  []func(w http.ResponseWriter)
	calls   int
	lastReq map[string]any
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.t
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&body); err != nil {
		t.Errorf("body is not JSON: %v", err)
	}
	checkRequestShape(t, body)
	f.lastReq = body
	if f.calls >= len(f.script) {
		t.Errorf("unexpected request %d", f.calls+1)
		w.WriteHeader(http.StatusTeapot)
		return
	}
	f.script[f.calls](w)
	f.calls++
}

func checkRequestShape(t *testing.T, body map[string]any) {
	t.Helper()
	keys := []string{}
	for k := range body {
		keys = append(keys, k)
	}
	if len(body) != 4 || body["model"] != "test-model" || body["temperature"] != float64(0) {
		t.Errorf("top-level fields %v: want exactly model=test-model, messages, temperature=0, response_format", keys)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v, want system and user", body["messages"])
	}
	for i, role := range []string{"system", "user"} {
		m, _ := msgs[i].(map[string]any)
		if m["role"] != role || m["content"] == "" || len(m) != 2 {
			t.Errorf("message %d = %v, want role %s with content", i, m, role)
		}
	}
	var user map[string]any
	if err := json.Unmarshal([]byte(msgs[1].(map[string]any)["content"].(string)), &user); err != nil {
		t.Errorf("user content is not the feedback as JSON: %v", err)
	}
	if _, ok := user["text"]; !ok || user["tags"] == nil {
		t.Errorf("user content %v lacks text or tags", user)
	}
	rf, _ := body["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["strict"] != true || js["name"] != "feedback_insights" {
		t.Errorf("response_format = %v", rf)
	}
	schema, _ := js["schema"].(map[string]any)
	items := schema["properties"].(map[string]any)["insights"].(map[string]any)["items"].(map[string]any)
	if req := items["required"].([]any); len(req) != 7 || items["additionalProperties"] != false {
		t.Errorf("item schema required %v additionalProperties %v", req, items["additionalProperties"])
	}
}

func answer(content string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		resp := map[string]any{"choices": []any{map[string]any{
			"finish_reason": "stop",
			"message":       map[string]any{"role": "assistant", "content": content},
		}}}
		_ = json.NewEncoder(w).Encode(resp)
	}
}

func status(code int, retryAfter, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// newTestOpenAI starts the fake endpoint and an extractor whose waits are recorded instead of slept.
func newTestOpenAI(t *testing.T, cfg OpenAIConfig, script ...func(w http.ResponseWriter)) (*OpenAI, *fakeLLM, *[]time.Duration) {
	fake := &fakeLLM{t: t, script: script}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.APIKey, cfg.Model = srv.URL+"/v1/", testKey, "test-model"
	o, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waits := &[]time.Duration{}
	o.sleep = func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}
	return o, fake, waits
}

var feedbackIn = Input{
	Title: "Export",
	Text:  "The CSV export   fails on big files. Please add dark mode!",
	Tags:  []string{"Export", "Dark Mode"},
}

func TestOpenAIExtract(t *testing.T) {
	content := `{"insights":[
	 {"kind":"Problem","summary":"CSV export fails on big files","quote":"The CSV export fails on big files.",
	  "sentiment":"negative","sentiment_score":-1.7,"themes":["CSV Exports","the big files"],"tags":["export","Billing"]},
	 {"kind":"request","summary":"","quote":"Please add dark mode!","sentiment":"odd","sentiment_score":0.2,
	  "themes":["Dark mode"],"tags":["DARK MODE"]},
	 {"kind":"complaint","summary":"x","quote":"Please add dark mode!","sentiment":"neutral","sentiment_score":0,"themes":[],"tags":[]},
	 {"kind":"praise","summary":"made up","quote":"I adore your pricing page.","sentiment":"positive","sentiment_score":0.9,"themes":[],"tags":[]}
	]}`
	o, fake, _ := newTestOpenAI(t, OpenAIConfig{}, answer(content))
	got, err := o.Extract(context.Background(), feedbackIn)
	if err != nil {
		t.Fatal(err)
	}
	want := []Insight{
		{Kind: KindProblem, Summary: "CSV export fails on big files", Quote: "The CSV export   fails on big files.",
			Sentiment: SentimentNegative, Score: -1, Themes: []string{"csv export", "big file"}, Tags: []string{"Export"}},
		{Kind: KindRequest, Summary: "Asks for dark mode", Quote: "Please add dark mode!", Sentiment: SentimentPositive,
			Score: 0.2, Themes: []string{"dark mode"}, Tags: []string{"Dark Mode"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	user := fake.lastReq["messages"].([]any)[1].(map[string]any)["content"].(string)
	if !strings.Contains(user, `"text":"The CSV export   fails on big files. Please add dark mode!"`) {
		t.Errorf("user message does not carry the feedback verbatim: %s", user)
	}
	if o.Name() != "openai" {
		t.Errorf("Name() = %q", o.Name())
	}
}

func TestOpenAIRetries(t *testing.T) {
	ok := answer(`{"insights":[]}`)
	httpDate := time.Now().Add(45 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name      string
		script    []func(w http.ResponseWriter)
		wantCalls int
		wantWaits []time.Duration // exact waits; nil: check count only
		nWaits    int
		wantErr   string
		wantRA    time.Duration
	}{
		{"429 with Retry-After seconds then success", []func(http.ResponseWriter){status(429, "7", "slow down"), ok},
			2, []time.Duration{7 * time.Second}, 1, "", 0},
		{"503 then 502 then success, backoff", []func(http.ResponseWriter){status(503, "", ""), status(502, "", ""), ok},
			3, nil, 2, "", 0},
		{"Retry-After as HTTP date", []func(http.ResponseWriter){status(429, httpDate, ""), ok},
			2, nil, 1, "", 0},
		{"gives up after max attempts", []func(http.ResponseWriter){status(500, "", "boom"), status(500, "", "boom"), status(500, "2", "boom")},
			3, nil, 2, "answered 500: boom", 2 * time.Second},
		{"Retry-After beyond the bound hands back to the queue", []func(http.ResponseWriter){status(429, "3600", "quota")},
			1, nil, 0, "answered 429: quota", time.Hour},
		{"400 is not retried", []func(http.ResponseWriter){status(400, "", `{"error":"bad schema"}`)},
			1, nil, 0, `answered 400: {"error":"bad schema"}`, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, fake, waits := newTestOpenAI(t, OpenAIConfig{MaxAttempts: 3, MaxRetryWait: time.Minute}, tc.script...)
			_, err := o.Extract(context.Background(), feedbackIn)
			if fake.calls != tc.wantCalls {
				t.Errorf("calls = %d, want %d", fake.calls, tc.wantCalls)
			}
			if len(*waits) != tc.nWaits || (tc.wantWaits != nil && !reflect.DeepEqual(*waits, tc.wantWaits)) {
				t.Errorf("waits = %v, want %d waits %v", *waits, tc.nWaits, tc.wantWaits)
			}
			for i, w := range *waits {
				if tc.wantWaits == nil && (w < 300*time.Millisecond || w > 100*time.Second) {
					t.Errorf("wait %d = %v out of range", i, w)
				}
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
			var temp *TemporaryError
			switch {
			case tc.wantRA < 0 && errors.As(err, &temp):
				t.Errorf("permanent failure returned as temporary: %v", err)
			case tc.wantRA >= 0 && (!errors.As(err, &temp) || temp.RetryAfter != tc.wantRA):
				t.Errorf("err = %#v, want *TemporaryError with RetryAfter %v", err, tc.wantRA)
			}
		})
	}
}

func TestOpenAIBadAnswers(t *testing.T) {
	refusal := func(w http.ResponseWriter) {
		_, _ = io.WriteString(w, `{"choices":[{"finish_reason":"stop","message":{"content":null,"refusal":"I cannot help"}}]}`)
	}
	cut := func(w http.ResponseWriter) {
		_, _ = io.WriteString(w, `{"choices":[{"finish_reason":"length","message":{"content":"{\"insi"}}]}`)
	}
	tests := []struct {
		name    string
		resp    func(http.ResponseWriter)
		wantErr string
	}{
		{"refusal", refusal, "model refused: I cannot help"},
		{"cut off", cut, "cut off at the token limit"},
		{"not JSON", answer("Sure! Here are the insights: ..."), "not the requested JSON"},
		{"no choices", status(200, "", `{"choices":[]}`), "no choices"},
		{"garbage body", status(200, "", `<html>`), "decode response"},
		{"only unusable items", answer(`{"insights":[{"kind":"rant","quote":"x"}]}`), "no usable insight"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, _, _ := newTestOpenAI(t, OpenAIConfig{}, tc.resp)
			_, err := o.Extract(context.Background(), feedbackIn)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestOpenAIErrorsNeverContainKey(t *testing.T) {
	echo := status(401, "", `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`)
	o, _, _ := newTestOpenAI(t, OpenAIConfig{}, echo)
	_, err := o.Extract(context.Background(), feedbackIn)
	if err == nil || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "answered 401") {
		t.Fatalf("err = %v: want a 401 error without the key", err)
	}

	// A dead endpoint (network error) and a hung one (timeout) name neither key nor URL credentials.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
	}))
	defer srv.Close()
	for _, base := range []string{"http://user:" + testKey + "@127.0.0.1:1/v1", srv.URL + "/v1?key=" + testKey} {
		o, err := NewOpenAI(OpenAIConfig{BaseURL: base, APIKey: testKey, Model: "m", MaxAttempts: 2, Timeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		o.sleep = func(context.Context, time.Duration) error { return nil }
		_, err = o.Extract(context.Background(), feedbackIn)
		var temp *TemporaryError
		if err == nil || strings.Contains(err.Error(), testKey) || !errors.As(err, &temp) {
			t.Errorf("base %q: err = %v, want a temporary error without the key", strings.ReplaceAll(base, testKey, "KEY"), err)
		}
	}
}

func TestOpenAIStopsWithContext(t *testing.T) {
	o, _, _ := newTestOpenAI(t, OpenAIConfig{}, status(503, "", ""), status(503, "", ""))
	ctx, cancel := context.WithCancel(context.Background())
	o.sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	_, err := o.Extract(ctx, feedbackIn)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestNewOpenAIValidates(t *testing.T) {
	tests := []struct {
		name    string
		cfg     OpenAIConfig
		wantErr string
	}{
		{"no base url", OpenAIConfig{Model: "m"}, "base_url"},
		{"relative base url", OpenAIConfig{BaseURL: "api.openai.com/v1", Model: "m"}, "base_url"},
		{"ftp base url", OpenAIConfig{BaseURL: "ftp://host/v1", Model: "m"}, "base_url"},
		{"no model", OpenAIConfig{BaseURL: "https://api.openai.com/v1"}, "model is required"},
		{"ok without key", OpenAIConfig{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3"}, ""},
		{"ok on localhost", OpenAIConfig{BaseURL: "http://localhost:11434/v1", Model: "llama3"}, ""},
		{"ok on IPv6 loopback", OpenAIConfig{BaseURL: "http://[::1]:11434/v1", Model: "llama3"}, ""},
		{"ok over https", OpenAIConfig{BaseURL: "https://api.example.com/v1", Model: "llama3"}, ""},
		// The key and the records' text would cross the network in clear.
		{"http to a remote host", OpenAIConfig{BaseURL: "http://api.example.com/v1", Model: "m"}, "must be https"},
		{"http to a private address", OpenAIConfig{BaseURL: "http://10.0.0.5:8000/v1", Model: "m"}, "must be https"},
		{"http to a look-alike of localhost", OpenAIConfig{BaseURL: "http://localhost.example.com/v1", Model: "m"}, "must be https"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := NewOpenAI(tc.cfg)
			if tc.wantErr == "" {
				if err != nil || o.endpoint != strings.TrimSpace(tc.cfg.BaseURL)+"/chat/completions" {
					t.Fatalf("err = %v, endpoint %q", err, o.endpoint)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "0": 0, "12": 12 * time.Second, "-3": 0, "soon": 0,
		"Sun, 22 Nov 2026 09:01:30 GMT": 90 * time.Second, "Sun, 22 Nov 2026 08:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestFromConfig(t *testing.T) {
	tests := []struct {
		provider, wantName, wantErr string
		oc                          OpenAIConfig
	}{
		{provider: "builtin", wantName: "builtin"},
		{provider: "", wantName: "builtin"},
		{provider: "openai", oc: OpenAIConfig{BaseURL: "https://api.openai.com/v1", Model: "gpt-4o-mini"}, wantName: "openai"},
		{provider: "openai", wantErr: "base_url"},
		{provider: "off"},
		{provider: "gpt", wantErr: `unknown provider "gpt"`},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			ex, err := FromConfig(tc.provider, tc.oc)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case tc.wantName == "":
				if ex != nil {
					t.Fatalf("off gave extractor %v", ex)
				}
			case ex == nil || ex.Name() != tc.wantName:
				t.Fatalf("extractor %v, want %s", ex, tc.wantName)
			}
		})
	}
}
