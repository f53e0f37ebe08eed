package config

import (
	"encoding/json"
	"strings"
	"testing"
)

// lookup follows a dotted path through Redacted's maps; a numeric segment indexes a list.
func lookup(t *testing.T, m map[string]any, path string) any {
	t.Helper()
	var cur any = m
	for _, seg := range strings.Split(path, ".") {
		switch x := cur.(type) {
		case map[string]any:
			cur = x[seg]
		case []any:
			i := int(seg[0] - '0')
			cur = x[i]
		default:
			t.Fatalf("%s: cannot descend into %T at %q", path, cur, seg)
		}
	}
	return cur
}

func TestRedacted(t *testing.T) {
	secrets := []string{"PGPASS1", "PGPASS2", "OPENAIKEY", "SIGNSECRET", "BOTTOKEN", "IMAPPASS", "CLIENTSECRET",
		"REFRESHTOK", "HDRTOKEN", "URLPASS", "BASEPASS"}
	yaml := `
store: {url: "postgres://feedbridge:PGPASS1@db.internal:5432/fb?sslmode=require&password=PGPASS2"}
insights:
  provider: openai
  openai: {base_url: "https://proxy:BASEPASS@llm.example/v1", api_key: OPENAIKEY, model: m}
connectors:
  slack:
    - {name: s, signing_secret: SIGNSECRET, bot_token: BOTTOKEN, team_id: T1}
  email:
    - name: e
      username: feedback@example.com
      password: IMAPPASS
      oauth2: {client_id: cid, client_secret: CLIENTSECRET, refresh_token: REFRESHTOK}
      poll_interval: 60s
  csv:
    - name: c
      url: "https://bot:URLPASS@crm.example/export.csv"
      headers: {Authorization: "Bearer HDRTOKEN"}
      mapping: {title: Subject}
`
	c, err := load(writeFile(t, "config.yaml", yaml), nil, func() []string { return nil })
	if err != nil {
		t.Fatal(err)
	}
	r := c.Redacted()
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(out), s) {
			t.Errorf("Redacted shows secret %s:\n%s", s, out)
		}
	}

	tests := []struct {
		path string
		want any
	}{
		{"store.url", "postgres://feedbridge:***@db.internal:5432/fb?password=***&sslmode=require"},
		{"insights.openai.api_key", Mask},
		{"insights.openai.base_url", "https://proxy:***@llm.example/v1"},
		{"insights.openai.model", "m"},
		{"http.listen", "127.0.0.1:8080"},
		{"http.shutdown_timeout", "20s"},
		{"connectors.slack.0.signing_secret", Mask},
		{"connectors.slack.0.bot_token", Mask},
		{"connectors.slack.0.team_id", "T1"},
		{"connectors.email.0.password", Mask},
		{"connectors.email.0.username", "feedback@example.com"},
		{"connectors.email.0.oauth2.client_secret", Mask},
		{"connectors.email.0.oauth2.refresh_token", Mask},
		{"connectors.email.0.oauth2.client_id", "cid"},
		{"connectors.csv.0.headers.Authorization", Mask},
		{"connectors.csv.0.url", "https://bot:***@crm.example/export.csv"},
		{"connectors.csv.0.mapping.title", "Subject"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			if got := lookup(t, r, tc.path); got != tc.want {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}

	// Redacting must not touch the live configuration the daemon keeps using.
	if c.Connectors["slack"][0]["signing_secret"] != "SIGNSECRET" || c.Insights.OpenAI.APIKey != "OPENAIKEY" {
		t.Error("Redacted modified the Config")
	}
}

func TestRedactedKeepsEmptyAndPlainValues(t *testing.T) {
	c := Default()
	r := c.Redacted()
	tests := []struct {
		path string
		want any
	}{
		{"insights.openai.api_key", ""}, // an unset secret shows as unset
		{"store.url", "sqlite://./feedbridge-data/feedbridge.db"},
		{"log.level", "info"},
		{"insights.workers", 2},
		{"http.rate_limit.per_second", 20.0},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			if got := lookup(t, r, tc.path); got != tc.want {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"sqlite:///var/lib/feedbridge/feedbridge.db", "sqlite:///var/lib/feedbridge/feedbridge.db"},
		{"postgres://user@db/fb", "postgres://user@db/fb"},
		{"postgres://user:p%40ss@db/fb", "postgres://user:***@db/fb"},
		{"postgres://db/fb?sslpassword=x&sslmode=verify-full", "postgres://db/fb?sslmode=verify-full&sslpassword=***"},
		{"postgres://user:pa ss@db:bad port/fb", Mask},
		{"https://crm.example/export.csv?token=abc&format=csv", "https://crm.example/export.csv?format=csv&token=***"},
		{"https://docs.example/sheet?key=k1&X-Amz-Signature=s1&gid=0", "https://docs.example/sheet?X-Amz-Signature=***&gid=0&key=***"},
		{"not a url", "not a url"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := redactURL(tc.in); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
