package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A caller that keeps sending bad webhook signatures is stopped without the daemon reading or hashing
// what it sends, and the refusals show on the entry in /api/connectors without a store write per request.
func TestHostileSignatureFlood(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "insights: {provider: \"off\"}\n")
	ws, key := e.workspace("SignatureFlood")
	e.configure("", "insights: {provider: \"off\"}\nconnectors:\n  webhook:\n"+
		"    - {name: signed, workspace: "+ws+", secret: hook-key-1, mapping: {title: title}}\n")
	d := e.start()
	codes := map[int]int{}
	for i := range 40 {
		req, _ := http.NewRequest("POST", d.url("/hooks/signed"), bytes.NewReader([]byte(`{"title":"forged"}`)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Signature", "sha256="+strings.Repeat("ab", 32))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp.Body.Close()
		codes[resp.StatusCode]++
	}
	if codes[401] == 0 || codes[429] == 0 || codes[401]+codes[429] != 40 {
		t.Fatalf("40 forged signatures answered %v, want some 401 and then 429", codes)
	}
	// The entry says so within its status flush.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var conns []struct {
			Name        string `json:"name"`
			LastError   string `json:"last_error"`
			Refused     int    `json:"refused"`
			LastRefused string `json:"last_refused"`
		}
		do(t, "GET", d.url("/api/connectors"), key, "", &conns)
		seen := false
		for _, c := range conns {
			seen = seen || (c.Name == "signed" && c.Refused == 40 && c.LastRefused != "" && c.LastError == "")
		}
		if seen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/api/connectors never showed the refusals: %+v", conns)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if logs := fmt.Sprint(d.logLines()); strings.Contains(logs, "hook-key-1") {
		t.Fatal("the secret appears in the log")
	}
	figures(t, "forged=40 unauthorized=%d limited=%d", codes[401], codes[429])
}

// An insights endpoint over plain http to another host would carry the API key and the records' text in
// clear: the daemon refuses to start with one, and config check names the key.
func TestHostilePlainHTTPModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "insights:\n  provider: openai\n  openai: {base_url: \"http://models.example.com/v1\", api_key: k-1, model: m}\n")
	out, code, errOut := e.cliCode("config", "check")
	if code == 0 || !strings.Contains(out+errOut, "base_url") {
		t.Fatalf("config check with an http:// model endpoint: exit %d\n%s%s", code, out, errOut)
	}
	_, code, errOut = e.cliCode("serve")
	if code == 0 || !strings.Contains(errOut, "base_url") {
		t.Fatalf("serve with an http:// model endpoint: exit %d\n%s", code, errOut)
	}
}
