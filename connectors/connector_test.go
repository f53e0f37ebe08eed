package connectors

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type testEntry struct {
	Name     string        `koanf:"name"`
	Password Secret        `koanf:"password"`
	Interval time.Duration `koanf:"poll_interval"`
	OAuth2   struct {
		Secret Secret `koanf:"client_secret"`
	} `koanf:"oauth2"`
	Headers map[string]Secret `koanf:"headers"`
}

func TestDecode(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "s")
	os.WriteFile(secret, []byte("hunter2\n"), 0o600)
	var e testEntry
	err := Decode(map[string]any{
		"name": "inbox", "password": "file:" + secret, "poll_interval": "90s",
		"oauth2":  map[string]any{"client_secret": "file:" + secret},
		"headers": map[string]any{"Authorization": "file:" + secret},
	}, &e)
	if err != nil {
		t.Fatal(err)
	}
	// Secrets stay as written and are read at use.
	if e.Password != Secret("file:"+secret) || e.OAuth2.Secret != e.Password || e.Headers["Authorization"] != e.Password || e.Interval != 90*time.Second {
		t.Fatalf("decoded %#v", e)
	}
	if v, err := e.Headers["Authorization"].Value(); err != nil || v != "hunter2" {
		t.Fatalf("header secret = %q, %v", v, err)
	}
	err = Decode(map[string]any{"name": "x", "pasword": "typo", "extra": 1}, &e)
	if err == nil || !strings.Contains(err.Error(), "pasword") || !strings.Contains(err.Error(), "extra") {
		t.Fatalf("unknown keys not named: %v", err)
	}
	// A secret file that cannot be read is reported when the entry is decoded, naming its key.
	for _, entry := range []map[string]any{
		{"password": "file:" + filepath.Join(dir, "missing")},
		{"oauth2": map[string]any{"client_secret": "file:" + filepath.Join(dir, "missing")}},
		{"headers": map[string]any{"X-Key": "file:" + filepath.Join(dir, "missing")}},
	} {
		var e testEntry
		err = Decode(entry, &e)
		if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "missing") {
			t.Fatalf("missing secret file: %v", err)
		}
	}
}
