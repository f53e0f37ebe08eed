package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// writeFile writes content into a fresh temp dir and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// flagSet mimics a CLI command: the config flags plus flags that are not configuration.
func flagSet(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	AddFlags(fs)
	fs.String("config", "", "")
	fs.Bool("json", false, "")
	fs.Bool("demo", false, "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestLoadLayering(t *testing.T) {
	const file = `
http:
  listen: 0.0.0.0:9000
  rate_limit: {per_second: 5}
  shutdown_timeout: 45s
log: {level: debug}
store: {url: sqlite:///var/lib/feedbridge/file.db}
insights: {openai: {timeout: 3m}}
connectors:
  csv:
    - {name: from-file, workspace: "6744a1b2c3d4e5f601020304"}
`
	tests := []struct {
		name  string
		yaml  string // "" loads no file
		env   []string
		flags []string
		check func(t *testing.T, c *Config)
	}{
		{name: "defaults only", check: func(t *testing.T, c *Config) {
			if want := Default(); !reflect.DeepEqual(*c, want) {
				t.Fatalf("got %+v\nwant %+v", *c, want)
			}
		}},
		{name: "file over defaults", yaml: file, check: func(t *testing.T, c *Config) {
			eq(t, "listen", c.HTTP.Listen, "0.0.0.0:9000")
			eq(t, "per_second", c.HTTP.RateLimit.PerSecond, 5.0)
			eq(t, "burst keeps default", c.HTTP.RateLimit.Burst, 40)
			eq(t, "shutdown", c.HTTP.ShutdownTimeout, 45*time.Second)
			eq(t, "read timeout default", c.HTTP.ReadTimeout, 30*time.Second)
			eq(t, "level", c.Log.Level, "debug")
			eq(t, "format default", c.Log.Format, "text")
			eq(t, "csv name", c.Connectors["csv"][0]["name"], any("from-file"))
			eq(t, "openai timeout", c.Insights.OpenAI.Timeout, 3*time.Minute)
		}},
		{name: "env over file", yaml: file, env: []string{
			"FEEDBRIDGE_STORE__URL=postgres://fb:pw@db:5432/fb",
			"FEEDBRIDGE_HTTP__RATE_LIMIT__BURST=7",
			"FEEDBRIDGE_HTTP__RATE_LIMIT__PER_SECOND=2.5",
			"FEEDBRIDGE_HTTP__READ_TIMEOUT=2m",
			"FEEDBRIDGE_LOG__LEVEL=warn",
			"FEEDBRIDGE_COMPANIES__PERSONAL_DOMAINS__ADD=mail.example, post.example ",
			"FEEDBRIDGE_INSIGHTS__WORKERS=0",
		}, check: func(t *testing.T, c *Config) {
			eq(t, "url", c.Store.URL, "postgres://fb:pw@db:5432/fb")
			eq(t, "burst", c.HTTP.RateLimit.Burst, 7)
			eq(t, "per_second", c.HTTP.RateLimit.PerSecond, 2.5)
			eq(t, "read timeout", c.HTTP.ReadTimeout, 2*time.Minute)
			eq(t, "level", c.Log.Level, "warn")
			eq(t, "listen from file", c.HTTP.Listen, "0.0.0.0:9000")
			eq(t, "domains", c.Companies.PersonalDomains.Add, []string{"mail.example", "post.example"})
			eq(t, "workers", c.Insights.Workers, 0)
		}},
		{name: "flags over env", yaml: file,
			env:   []string{"FEEDBRIDGE_LOG__LEVEL=warn", "FEEDBRIDGE_HTTP__LISTEN=:7000"},
			flags: []string{"--log.level=error", "--json", "--config=/elsewhere.yaml"},
			check: func(t *testing.T, c *Config) {
				eq(t, "level from flag", c.Log.Level, "error")
				eq(t, "listen from env, flag unset", c.HTTP.Listen, ":7000")
				eq(t, "store from file, flag default ignored", c.Store.URL, "sqlite:///var/lib/feedbridge/file.db")
			}},
		{name: "unset flags never override the file", yaml: file, flags: []string{"--demo"},
			check: func(t *testing.T, c *Config) {
				eq(t, "listen", c.HTTP.Listen, "0.0.0.0:9000")
				eq(t, "level", c.Log.Level, "debug")
			}},
		{name: "variables without __ are not configuration", env: []string{
			"FEEDBRIDGE_CONFIG=/etc/feedbridge/config.yaml",
			"FEEDBRIDGE_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test",
			"OTHER__THING=1",
		}, check: func(t *testing.T, c *Config) {
			if want := Default(); !reflect.DeepEqual(*c, want) {
				t.Fatalf("got %+v, want defaults", *c)
			}
		}},
		{name: "connector entries from env JSON replace the file's", yaml: file, env: []string{
			`FEEDBRIDGE_CONNECTORS__CSV=[{"name": "env-a", "mapping": {"title": "Subject"}}, {"name": "env-b"}]`,
		}, check: func(t *testing.T, c *Config) {
			eq(t, "entries", len(c.Connectors["csv"]), 2)
			eq(t, "first", c.Connectors["csv"][0]["name"], any("env-a"))
			m, ok := c.Connectors["csv"][0]["mapping"].(map[string]any)
			if !ok || m["title"] != "Subject" {
				t.Fatalf("mapping = %#v", c.Connectors["csv"][0]["mapping"])
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.yaml != "" {
				path = writeFile(t, "config.yaml", tc.yaml)
			}
			var fs *pflag.FlagSet
			if tc.flags != nil {
				fs = flagSet(t, tc.flags...)
			}
			c, err := load(path, fs, func() []string { return tc.env })
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			tc.check(t, c)
		})
	}
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		env     []string
		want    []string // each must appear in the error
		notWant []string // none may appear (secrets)
		count   int      // number of listed problems
	}{
		{name: "every unknown key by full path", yaml: `
http:
  listn: ":80"
  rate_limit: {per_second: 3, brust: 9}
bogus: 1
insights: {openai: {apikey: x}}
connectors: {teams: []}
`, want: []string{`"http.listn"`, `"http.rate_limit.brust"`, `"bogus"`, `"insights.openai.apikey"`, `"connectors.teams"`,
			"config.yaml line 3", "config.yaml line 4", "config.yaml line 5", "config.yaml line 6", "config.yaml line 7"},
			count: 5},
		{name: "unknown env key names the variable", env: []string{"FEEDBRIDGE_STORE__ULR=x", "FEEDBRIDGE_LOG__LEVL=x"},
			want: []string{`"store.ulr" from environment variable FEEDBRIDGE_STORE__ULR`, `"log.levl"`}, count: 2},
		{name: "single underscore is reported", env: []string{"FEEDBRIDGE_LOG_LEVEL=debug"},
			want: []string{"FEEDBRIDGE_LOG_LEVEL", "FEEDBRIDGE_LOG__LEVEL"}, count: 1},
		{name: "duration without unit", yaml: "http: {read_timeout: 30}", want: []string{"http.read_timeout", "unit"}, count: 1},
		{name: "bad duration text", env: []string{"FEEDBRIDGE_HTTP__WRITE_TIMEOUT=soon"}, want: []string{"http.write_timeout", `"soon"`}, count: 1},
		{name: "wrong types listed together", yaml: "insights: {workers: many}\nhttp: {rate_limit: {burst: [1]}}",
			want: []string{"insights.workers", "http.rate_limit.burst"}, count: 2},
		{name: "section that is not a mapping", yaml: "log: loud", want: []string{"log"}, count: 1},
		{name: "unknown keys and bad values together", yaml: "http: {listn: x, read_timeout: 5}",
			want: []string{`"http.listn"`, "http.read_timeout"}, count: 2},
		{name: "connector env that is not a list hides its value",
			env:  []string{`FEEDBRIDGE_CONNECTORS__EMAIL=[{"name": "x", "password": "hunter2"`},
			want: []string{"FEEDBRIDGE_CONNECTORS__EMAIL"}, notWant: []string{"hunter2"}, count: 1},
		{name: "unreadable secret file names key and path",
			env:  []string{"FEEDBRIDGE_INSIGHTS__OPENAI__API_KEY=file:/nonexistent/openai-key"},
			want: []string{"insights.openai.api_key", "/nonexistent/openai-key"}, count: 1},
		{name: "empty secret file names key and path",
			env:  []string{"FEEDBRIDGE_INSIGHTS__OPENAI__API_KEY=file:" + os.DevNull},
			want: []string{"insights.openai.api_key", os.DevNull, "empty"}, count: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.yaml != "" {
				path = writeFile(t, "config.yaml", tc.yaml)
			}
			c, err := load(path, nil, func() []string { return tc.env })
			if err == nil {
				t.Fatalf("load succeeded: %+v", c)
			}
			if c == nil {
				t.Error("no config with the problems: config check could not validate the rest")
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("error leaks %q:\n%s", w, msg)
				}
			}
			if n := len(flatten(err)); n != tc.count {
				t.Errorf("%d problems listed, want %d:\n%s", n, tc.count, msg)
			}
		})
	}
}

func TestLoadFileProblems(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), nil); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: err = %v", err)
	}
	bad := writeFile(t, "bad.yaml", "http: [unclosed")
	if _, err := Load(bad, nil); err == nil || !strings.Contains(err.Error(), "parse "+bad) {
		t.Errorf("bad YAML: err = %v", err)
	}
	// The line named is the one with the mistake, for the parser's errors as for the scanner's.
	for _, tc := range []struct{ yaml, line string }{
		{"http:\n  listen: x\nstore:\n  url: [unclosed\nlog:\n  level: info\n", "line 4:"},
		{"http:\n  listen: x\n bad: 1\n", "line 3:"},
		{"a: 1\n- b\n", "line 2:"},
		{"http:\n  listen: x\nstore:\n\turl: x\n", "line 4:"},
	} {
		if _, err := Load(writeFile(t, "bad.yaml", tc.yaml), nil); err == nil || !strings.Contains(err.Error(), tc.line) {
			t.Errorf("%q: want %q, got %v", tc.yaml, tc.line, err)
		}
	}
}

func TestLoadResolvesFileSecrets(t *testing.T) {
	dbURL := writeFile(t, "db-url", "postgres://fb:s3cret@db:5432/fb\n")
	key := writeFile(t, "openai", "sk-test-123\n")
	cfgPath := writeFile(t, "config.yaml", "store: {url: file:"+dbURL+"}\ninsights: {openai: {api_key: file:"+key+"}}\n"+
		"connectors: {slack: [{name: s, signing_secret: file:/run/secrets/slack}]}\n")
	c, err := load(cfgPath, nil, func() []string { return nil })
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "store.url", c.Store.URL, "postgres://fb:s3cret@db:5432/fb")
	eq(t, "api_key", c.Insights.OpenAI.APIKey, "sk-test-123")
	eq(t, "openai timeout (default)", c.Insights.OpenAI.Timeout, time.Minute)
	// Connector entries stay raw: their packages read secrets at use with connectors.Secret.
	eq(t, "signing_secret", c.Connectors["slack"][0]["signing_secret"], any("file:/run/secrets/slack"))
}
