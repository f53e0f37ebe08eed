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
	Password string        `koanf:"password"`
	Interval time.Duration `koanf:"poll_interval"`
	OAuth2   struct {
		Secret string `koanf:"client_secret"`
	} `koanf:"oauth2"`
	Headers map[string]string `koanf:"headers"`
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
	if e.Password != "hunter2" || e.OAuth2.Secret != "hunter2" || e.Headers["Authorization"] != "hunter2" || e.Interval != 90*time.Second {
		t.Fatalf("decoded %+v", e)
	}
	err = Decode(map[string]any{"name": "x", "pasword": "typo", "extra": 1}, &e)
	if err == nil || !strings.Contains(err.Error(), "pasword") || !strings.Contains(err.Error(), "extra") {
		t.Fatalf("unknown keys not named: %v", err)
	}
	err = Decode(map[string]any{"password": "file:" + filepath.Join(dir, "missing")}, &e)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("missing secret file: %v", err)
	}
}
