package config

import (
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   []string // the key each listed problem starts with, in order; nil means valid
	}{
		{name: "defaults are valid", mutate: func(*Config) {}},
		{name: "any-interface listen", mutate: func(c *Config) { c.HTTP.Listen = ":8080" }},
		{name: "IPv6 listen", mutate: func(c *Config) { c.HTTP.Listen = "[::1]:8080" }},
		{name: "host name listen", mutate: func(c *Config) { c.HTTP.Listen = "localhost:8080" }},
		{name: "postgres store", mutate: func(c *Config) { c.Store.URL = "postgres://fb:pw@db:5432/fb?sslmode=disable" }},
		{name: "absolute sqlite path", mutate: func(c *Config) { c.Store.URL = "sqlite:///var/lib/feedbridge/feedbridge.db" }},
		{name: "openai complete", mutate: func(c *Config) {
			c.Insights.Provider = "openai"
			c.Insights.OpenAI = OpenAI{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3"}
		}},
		{name: "insights off with no workers", mutate: func(c *Config) { c.Insights.Provider, c.Insights.Workers = "off", 0 }},
		{name: "listen without port", mutate: func(c *Config) { c.HTTP.Listen = "127.0.0.1" }, want: []string{"http.listen"}},
		{name: "listen port out of range", mutate: func(c *Config) { c.HTTP.Listen = ":70000" }, want: []string{"http.listen"}},
		{name: "zero rate", mutate: func(c *Config) { c.HTTP.RateLimit.PerSecond = 0 }, want: []string{"http.rate_limit.per_second"}},
		{name: "zero burst", mutate: func(c *Config) { c.HTTP.RateLimit.Burst = 0 }, want: []string{"http.rate_limit.burst"}},
		{name: "timeouts", mutate: func(c *Config) { c.HTTP.ReadTimeout, c.HTTP.ShutdownTimeout = 0, -1 },
			want: []string{"http.read_timeout", "http.shutdown_timeout"}},
		{name: "mysql store", mutate: func(c *Config) { c.Store.URL = "mysql://u:p@db/fb" }, want: []string{"store.url"}},
		{name: "bare path store", mutate: func(c *Config) { c.Store.URL = "./feedbridge.db" }, want: []string{"store.url"}},
		{name: "postgres without host", mutate: func(c *Config) { c.Store.URL = "postgres:///fb" }, want: []string{"store.url"}},
		{name: "empty sqlite", mutate: func(c *Config) { c.Store.URL = "sqlite://" }, want: []string{"store.url"}},
		{name: "console public url", mutate: func(c *Config) { c.Console.PublicURL = "https://feedback.example.com/fb" }},
		{name: "console public url without scheme", mutate: func(c *Config) { c.Console.PublicURL = "feedback.example.com" },
			want: []string{"console.public_url"}},
		{name: "console public url of another scheme", mutate: func(c *Config) { c.Console.PublicURL = "ftp://example.com" },
			want: []string{"console.public_url"}},
		{name: "notify statuses in any case", mutate: func(c *Config) { c.Notify.Statuses = []string{"in progress", "RELEASED"} }},
		{name: "notify status of feedback", mutate: func(c *Config) { c.Notify.Statuses = []string{"Archived", "Merged"} },
			want: []string{"notify.statuses", "notify.statuses"}},
		{name: "notify smtp complete", mutate: func(c *Config) {
			c.Notify.SMTP = NotifySMTP{Server: "smtp.example.com:465", Security: "tls", Username: "u", Password: "p", From: "fb@example.com"}
		}},
		{name: "notify smtp none on loopback", mutate: func(c *Config) {
			c.Notify.SMTP = NotifySMTP{Server: "127.0.0.1:25", Security: "none", From: "fb@example.com"}
		}},
		{name: "notify smtp problems", mutate: func(c *Config) {
			c.Notify.SMTP = NotifySMTP{Server: "smtp.example.com", Security: "none", Username: "u", From: "Feedback <fb@example.com>"}
		}, want: []string{"notify.smtp.from", "notify.smtp.password", "notify.smtp.security", "notify.smtp.server"}},
		{name: "log level", mutate: func(c *Config) { c.Log.Level = "verbose" }, want: []string{"log.level"}},
		{name: "empty log level", mutate: func(c *Config) { c.Log.Level = "" }, want: []string{"log.level"}},
		{name: "log format", mutate: func(c *Config) { c.Log.Format = "xml" }, want: []string{"log.format"}},
		{name: "provider", mutate: func(c *Config) { c.Insights.Provider = "gpt" }, want: []string{"insights.provider"}},
		{name: "negative workers", mutate: func(c *Config) { c.Insights.Workers = -1 }, want: []string{"insights.workers"}},
		{name: "openai incomplete", mutate: func(c *Config) { c.Insights.Provider = "openai" },
			want: []string{"insights.openai.base_url", "insights.openai.model"}},
		{name: "openai over http to a remote host", mutate: func(c *Config) {
			c.Insights.Provider = "openai"
			c.Insights.OpenAI = OpenAI{BaseURL: "http://llm.example.com/v1", Model: "llama3"}
		}, want: []string{"insights.openai.base_url"}},
		{name: "openai timeout", mutate: func(c *Config) {
			c.Insights.Provider = "openai"
			c.Insights.OpenAI = OpenAI{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3", Timeout: -time.Second}
		}, want: []string{"insights.openai.timeout"}},
		{name: "personal domains", mutate: func(c *Config) {
			c.Companies.PersonalDomains.Add = []string{"ok.example", "jane@x.com"}
			c.Companies.PersonalDomains.Remove = []string{""}
		}, want: []string{"companies.personal_domains.add", "companies.personal_domains.remove"}},
		{name: "connector names", mutate: func(c *Config) {
			c.Connectors["email"] = []map[string]any{{"name": "inbox"}, {"name": "inbox"}, {"server": "x"}}
			c.Connectors["csv"] = []map[string]any{{"name": "inbox"}} // another kind may reuse a name
		}, want: []string{"connectors.email[1].name", "connectors.email[2].name"}},
		{name: "every problem listed at once", mutate: func(c *Config) {
			c.HTTP.Listen, c.Store.URL, c.Log.Format, c.Insights.Workers = "nope", "ftp://x", "yaml", -3
		}, want: []string{"http.listen", "insights.workers", "log.format", "store.url"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.mutate(&c)
			errs := c.Validate()
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d problems %v, want %v", len(errs), errs, tc.want)
			}
			for i, err := range errs {
				if !strings.HasPrefix(err.Error(), tc.want[i]+":") {
					t.Errorf("problem %d = %q, want it about %s", i, err, tc.want[i])
				}
			}
		})
	}
}

func TestValidateNeverQuotesStorePassword(t *testing.T) {
	c := Default()
	c.Store.URL = "mysql://u:TOPSECRET@db/fb"
	for _, err := range c.Validate() {
		if strings.Contains(err.Error(), "TOPSECRET") {
			t.Fatalf("validation error leaks the password: %v", err)
		}
	}
}
