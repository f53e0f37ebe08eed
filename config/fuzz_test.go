package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary files through Load, Validate and Redacted: whatever an operator writes must
// give a config or an error, never a panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("http: {listen: ':8080'}\n"))
	f.Add([]byte("http: {read_timeout: 5}\nbogus: 1\n"))
	f.Add([]byte("connectors: {csv: [{name: a, headers: {X: y}}], email: [1, [2]], slack: {name: s}}\n"))
	f.Add([]byte("store: {url: 'postgres://u:p@h/db?password=x'}\nlog: [a]\n"))
	f.Add([]byte("companies: {personal_domains: {add: a.com}}\ninsights: {workers: '3'}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := load(p, nil, func() []string { return nil })
		if c == nil {
			if err == nil {
				t.Fatal("neither a config nor an error")
			}
			return
		}
		// With problems, the config holds what could be decoded; config check validates it all the same.
		_ = c.Validate()
		_ = c.Redacted()
	})
}
