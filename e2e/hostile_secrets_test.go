package e2e

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An empty secret opens nothing: a webhook or Slack entry whose secret file is empty is refused by `config
// check`, at start and at reload; one whose file goes empty while the daemon runs lets in neither a request
// signed with an empty key nor "Bearer" and a non-breaking space, and a Slack entry whose secret went empty
// does not stop the other entry from working.
func TestHostileEmptySecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "insights: {provider: \"off\"}\n")
	ws, _ := e.workspace("EmptySecrets")
	file := func(name, content string) string {
		p := filepath.Join(e.dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := file("empty", "")
	hookKey, token, slackA := file("hook", "hook-key-1\n"), file("token", "tok-1\n"), file("slack-a", "slack-secret-a\n")
	config := func(hook, tok, slack string) string {
		return fmt.Sprintf("insights: {provider: \"off\"}\nconnectors:\n  webhook:\n"+
			"    - {name: signed, workspace: %[1]s, secret: \"file:%[2]s\", mapping: {title: title}}\n"+
			"    - {name: bearer, workspace: %[1]s, auth: bearer, token: \"file:%[3]s\", mapping: {title: title}}\n"+
			"  slack:\n    - {name: a, workspace: %[1]s, signing_secret: \"file:%[4]s\"}\n"+
			"    - {name: b, workspace: %[1]s, signing_secret: slack-secret-b}\n", ws, hook, tok, slack)
	}

	for _, c := range []struct{ name, config, key string }{
		{"webhook secret", config(empty, token, slackA), "secret"},
		{"webhook token", config(hookKey, empty, slackA), "token"},
		{"slack signing secret", config(hookKey, token, empty), "signing_secret"},
	} {
		e.configure("", c.config)
		out, code, errOut := e.cliCode("config", "check")
		if code == 0 || !strings.Contains(out+errOut, c.key) || !strings.Contains(out+errOut, "empty") {
			t.Errorf("config check with an empty %s: exit %d\n%s%s", c.name, code, out, errOut)
		}
	}

	e.configure("", config(hookKey, token, slackA))
	d := e.start()
	hook := func(name string, header http.Header) int {
		body := []byte(`{"title": "hostile ` + name + `"}`)
		if header == nil {
			m := hmac.New(sha256.New, nil) // an empty key
			m.Write(body)
			header = http.Header{"X-Signature": {"sha256=" + hex.EncodeToString(m.Sum(nil))}}
		}
		req, _ := http.NewRequest("POST", d.url("/hooks/"+name), bytes.NewReader(body))
		req.Header = header
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	slack := func(secret string) int {
		resp, err := client.Do(slackRequest(d, secret, time.Now(), "hostile slack "+secret))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	bearer := func(v string) http.Header { return http.Header{"Authorization": {v}} }
	if code := hook("bearer", bearer("Bearer tok-1")); code != 201 {
		t.Fatalf("the real token: %d", code)
	}
	if code := hook("bearer", bearer("Bearer \u00a0tok-1")); code != 401 {
		t.Errorf("a non-breaking space before the token: %d, want 401", code)
	}

	// The files go empty under the running daemon.
	for _, p := range []string{hookKey, token, slackA} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if code := hook("signed", nil); code < 400 {
		t.Errorf("signed with an empty key: %d", code)
	}
	for _, v := range []string{"Bearer \u00a0", "Bearer ", "Bearer tok-1"} {
		if code := hook("bearer", bearer(v)); code < 400 {
			t.Errorf("%q with an empty token file: %d", v, code)
		}
	}
	if code := slack(""); code != 401 {
		t.Errorf("Slack signed with an empty key: %d, want 401", code)
	}
	if code := slack("slack-secret-b"); code != 200 {
		t.Errorf("the other Slack entry: %d, want 200", code)
	}

	before := d.logged("reload: refused")
	d.cmd.Process.Signal(syscall.SIGHUP)
	eventually(t, 20*time.Second, "the reload with empty secrets refused", func() bool { return d.logged("reload: refused") > before })

	eventually(t, 10*time.Second, "the other Slack entry's record", func() bool {
		return db(e).int(t, "SELECT count(*) FROM records WHERE title LIKE 'hostile slack slack-secret-b%'") == 1
	})
	if n := db(e).int(t, "SELECT count(*) FROM records"); n != 2 {
		t.Errorf("%d records, want the real token's and the other Slack entry's", n)
	}
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit code %d", code)
	}
}
