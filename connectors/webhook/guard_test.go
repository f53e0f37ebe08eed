package webhook

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
)

// rawPost sends the headers of a POST declaring a body of length bytes and only the first sent of them,
// from the loopback address from; the connection stays open until the test ends.
func (h *harness) rawPost(from, name string, header http.Header, length, sent int) net.Conn {
	h.t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", strings.TrimPrefix(h.srv.URL, "http://"))
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { c.Close() })
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST /hooks/%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", name, length)
	header.Write(&b)
	b.WriteString("\r\n")
	b.WriteString(strings.Repeat("a", sent))
	if _, err := c.Write(b.Bytes()); err != nil {
		h.t.Fatal(err)
	}
	return c
}

// answerWithin reads the status of c's answer, 0 when none came within d.
func answerWithin(c net.Conn, d time.Duration) (int, http.Header) {
	c.SetReadDeadline(time.Now().Add(d))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, nil
	}
	res.Body.Close()
	return res.StatusCode, res.Header
}

// A request whose headers already fail is refused before its body is read: a held upload with a wrong
// token or no signature gets its 401 at once. Before, the whole body was read first, so the answer waited
// for a body that never came.
func TestRefusedOnHeadersBeforeTheBody(t *testing.T) {
	h := newHarness(t)
	bearer := plainEntry("form")
	delete(bearer, "secret")
	bearer["auth"], bearer["token"] = "bearer", "tok"
	stamped := plainEntry("stamped")
	stamped["timestamp_header"] = "X-Timestamp"
	h.start(plainEntry("crm"), bearer, stamped)
	old := fmt.Sprint(time.Now().Add(-time.Hour).Unix())
	for _, tc := range []struct {
		name, entry string
		header      http.Header
	}{
		{"wrong token", "form", http.Header{"Authorization": {"Bearer nope"}}},
		{"no token", "form", http.Header{}},
		{"no signature", "crm", http.Header{}},
		{"signature not hex", "crm", http.Header{"X-Signature": {"sha256=zz"}}},
		{"stale timestamp", "stamped", http.Header{"X-Signature": {"sha256=00"}, "X-Timestamp": {old}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := h.rawPost("127.0.0.1", tc.entry, tc.header, 1<<20, 10)
			if code, _ := answerWithin(c, 2*time.Second); code != 401 {
				t.Fatalf("status %d, want 401 before the body is sent", code)
			}
		})
	}
}

// Bodies that must be read to check their signature share a budget: one address holds at most a quarter of
// it (8 uploads at the default 1 MiB limit), and the next gets 503 with Retry-After at once instead of
// holding more memory. Before, every held upload was read and kept.
func TestHeldUploadsAreBounded(t *testing.T) {
	h := newHarness(t)
	h.start(plainEntry("crm"))
	sig := hexSig("s3cret", []byte("x"))
	for range 8 {
		h.rawPost("127.0.0.1", "crm", sig, 1<<20, 10)
	}
	for deadline := time.Now().Add(3 * time.Second); h.set.guard.HeldBytes() < 8<<20 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := h.set.guard.HeldBytes(); got != 8<<20 {
		t.Fatalf("the guard holds %d bytes for 8 held uploads, want %d", got, 8<<20)
	}
	c := h.rawPost("127.0.0.1", "crm", sig, 1<<20, 10)
	code, hdr := answerWithin(c, 2*time.Second)
	if code != 503 || hdr.Get("Retry-After") == "" {
		t.Fatalf("a ninth held upload from one address: %d (Retry-After %q), want 503 with Retry-After", code, hdr.Get("Retry-After"))
	}
	// Another address has its own share.
	other := h.rawPost("127.0.0.2", "crm", sig, 1<<20, 10)
	if code, _ := answerWithin(other, 300*time.Millisecond); code != 0 {
		t.Fatalf("another address's upload was answered %d before its body came", code)
	}
}

// Failed signatures are limited per address: past the budget the address gets 429 with Retry-After without
// its body being checked (even a good signature), other addresses are served, refusals show in the entry's
// status, and the log gets a sample without the secret or the signature.
func TestSignatureFailuresAreLimited(t *testing.T) {
	h := newHarness(t)
	h.start(plainEntry("crm"))
	h.set.guard.Limits.FailureBurst = 5
	h.set.guard.Limits.FailurePerSecond = 0.01
	body := []byte(`{"id": "T-1", "title": "Export"}`)
	bad := hexSig("guess", body)
	for range 5 {
		h.post("crm", body, bad).want(t, 401)
	}
	r := h.post("crm", body, bad)
	r.want(t, 429, "too many failed authentications")
	h.post("crm", body, hexSig("s3cret", body)).want(t, 429)
	if len(h.records()) != 0 {
		t.Fatal("a limited address's delivery was written")
	}
	other := h.clientFrom("127.0.0.2")
	req, _ := http.NewRequestWithContext(context.Background(), "POST", h.srv.URL+"/hooks/crm", bytes.NewReader(body))
	req.Header = hexSig("s3cret", body)
	req.Header.Set("Content-Type", "application/json")
	res, err := other.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("another address: %d, want 201", res.StatusCode)
	}

	if err := h.set.board.Flush(h.ctx, connectors.StateRunning, true); err != nil {
		t.Fatal(err)
	}
	sts, err := h.svc.Connectors(h.ctx, h.ws)
	if err != nil || len(sts) != 1 {
		t.Fatalf("statuses %v, %v", sts, err)
	}
	if st := sts[0]; st.Refused != 7 || st.LastRefused != "too many failed authentications from this address" || st.LastError != "" {
		t.Fatalf("status %+v, want the 7 refusals and the last reason, and no last_error", st)
	}
	logs := h.logs.String()
	if n := strings.Count(logs, "request refused"); n != 1 {
		t.Fatalf("%d refusal lines for 7 refusals within a minute, want 1:\n%s", n, logs)
	}
	sigHex := strings.TrimPrefix(bad.Get("X-Signature"), "sha256=")
	if strings.Contains(logs, "s3cret") || strings.Contains(logs, sigHex) {
		t.Fatal("the secret or the signature reached the log")
	}
}

// clientFrom is an HTTP client whose connections come from the loopback address ip.
func (h *harness) clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}
