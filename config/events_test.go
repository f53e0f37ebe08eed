package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const eventsWS = "6744a1b2c3d4e5f601020304"

// The events entries: loaded from the file or the environment, unknown keys refused by path, every value
// checked and named by its key, secrets masked by `config show` and their files read only by the checks
// that may touch the disk.
func TestEventsEntries(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := `{name: crm, workspace: ` + eventsWS + `, url: "https://crm.example.com/h?token=abc", secret: "file:` + secretFile + `"}`
	cases := []struct {
		name, entries string
		load, want    []string // problems of Load, of Validate (substrings, in order)
		secrets       []string // of SubscriberSecretProblems
	}{
		{name: "good", entries: good},
		{name: "unknown key", entries: `{name: a, workspace: ` + eventsWS + `, url: "https://x.example", secret: k, retries: 3}`,
			load: []string{`unknown key "events[0].retries"`}, want: []string{"events[0]: unknown keys: retries"}},
		{name: "every value wrong", entries: `{name: "a b", workspace: nope, url: "http://x.example", secret: "  ", events: [record.exploded], retry_for: 0s, concurrency: 0, timeout: 10m}`,
			want: []string{"events[0].concurrency", `events[0].events: unknown event type "record.exploded"`, "events[0].name",
				"events[0].retry_for", "events[0].secret", "events[0].timeout", "events[0].url: must be https://", "events[0].workspace"}},
		{name: "http with allow_private", entries: `{name: a, workspace: ` + eventsWS + `, url: "http://127.0.0.1:9/h", secret: k, allow_private: true}`},
		{name: "url with a password", entries: `{name: a, workspace: ` + eventsWS + `, url: "https://u:p@x.example/", secret: k}`,
			want: []string{"events[0].url: must not carry a user or password"}},
		{name: "duplicate names", entries: good + `, ` + good, want: []string{`events[1].name: "crm" is used by another subscriber`}},
		{name: "missing secret file", entries: `{name: a, workspace: ` + eventsWS + `, url: "https://x.example", secret: "file:/nonexistent/s"}`,
			secrets: []string{"events[0].secret: secret: open /nonexistent/s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte("events: ["+c.entries+"]\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := load(path, nil, func() []string { return nil })
			checkProblems(t, "load", splitErr(err), c.load)
			checkProblems(t, "validate", cfg.Validate(), c.want)
			checkProblems(t, "secrets", cfg.SubscriberSecretProblems(), c.secrets)
		})
	}
}

func splitErr(err error) []error {
	if err == nil {
		return nil
	}
	return flatten(err)
}

func checkProblems(t *testing.T, what string, got []error, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d problems %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i].Error(), w) {
			t.Errorf("%s: problem %d is %q, want it to say %q", what, i, got[i], w)
		}
	}
}

func TestEventsFromEnvironmentAndRedacted(t *testing.T) {
	env := func() []string {
		return []string{`FEEDBRIDGE_EVENTS=[{"name":"crm","workspace":"` + eventsWS + `","url":"https://crm.example.com/h?token=abc","secret":"s3cret","events":["record.created"]}]`}
	}
	cfg, err := load("", nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	subs, err := cfg.Subscribers()
	if err != nil || len(subs) != 1 || subs[0].Name != "crm" || len(subs[0].Events) != 1 || subs[0].Concurrency != 4 {
		t.Fatalf("subscribers %+v, %v", subs, err)
	}
	shown, _ := json.Marshal(cfg.Redacted())
	if strings.Contains(string(shown), "s3cret") || strings.Contains(string(shown), "token=abc") || !strings.Contains(string(shown), `"secret":"***"`) {
		t.Fatalf("config show: %s", shown)
	}
	bad := func() []string { return []string{"FEEDBRIDGE_EVENTS=[{not json s3cret"} }
	_, err = load("", nil, bad)
	if err == nil || !strings.Contains(err.Error(), "FEEDBRIDGE_EVENTS: not a JSON list") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("a bad FEEDBRIDGE_EVENTS: %v", err)
	}
}
