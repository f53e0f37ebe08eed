package slack

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Bad signatures are limited per address: past the budget the address gets 429 with Retry-After, even with
// a good signature (no body is read to find out), while another address is served; the log holds one
// sampled line, without the secret or the signature.
func TestSignatureFailuresAreLimited(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)
	h.set.guard.Limits.FailureBurst = 5
	h.set.guard.Limits.FailurePerSecond = 0.01
	form := h.commandForm("T1", "/feedback", "Dark mode please")
	for range 5 {
		if status, _ := h.post("/slack/commands", "guess", form, nil); status != http.StatusUnauthorized {
			t.Fatalf("a bad signature within the budget: %d, want 401", status)
		}
	}
	for _, secret := range []string{"guess", "s3cret-one"} {
		req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/slack/commands", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		signHeaders(req.Header, secret, time.Now(), form.Encode())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("signed with %s past the budget: %d (Retry-After %q), want 429 with Retry-After", secret, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if n := h.count(ws, core.RecordFeedback); n != 0 {
		t.Fatalf("%d records from a limited address", n)
	}

	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	other := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/slack/commands", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	signHeaders(req.Header, "s3cret-one", time.Now(), form.Encode())
	resp, err := other.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("another address: %d, want 200", resp.StatusCode)
	}

	logs := h.logs.String()
	if n := strings.Count(logs, "request refused"); n != 1 {
		t.Fatalf("%d refusal lines for 7 refusals within a minute, want 1:\n%s", n, logs)
	}
	if strings.Contains(logs, "s3cret-one") || strings.Contains(logs, "v0=") {
		t.Fatal("the secret or a signature reached the log")
	}
}
