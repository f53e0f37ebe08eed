package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveSecret(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", maxSecretSize+1)
	tests := []struct {
		name    string
		content string // written to a file when the value is "file:" + that file
		value   string
		want    string
		wantErr string
	}{
		{name: "plain value untouched", value: "xoxb-plain", want: "xoxb-plain"},
		{name: "empty stays empty", value: "", want: ""},
		{name: "file with trailing newline", content: "s3cret\n", want: "s3cret"},
		{name: "file with CRLF", content: "s3cret\r\n", want: "s3cret"},
		{name: "only one newline removed", content: "line1\nline2\n\n", want: "line1\nline2\n"},
		{name: "no newline", content: "s3cret", want: "s3cret"},
		{name: "spaces kept", content: " padded ", want: " padded "},
		{name: "missing file", value: "file:" + filepath.Join(dir, "nope"), wantErr: "nope"},
		{name: "empty path", value: "file:", wantErr: "needs a path"},
		{name: "too large", content: big, wantErr: "larger than"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			value := tc.value
			if tc.content != "" {
				value = "file:" + writeFile(t, "secret"+string(rune('a'+i)), tc.content)
			}
			got, err := ResolveSecret(value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if tc.content != "" && strings.Contains(err.Error(), tc.content[:10]) {
					t.Fatalf("error quotes the secret: %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestIsSecretKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"signing_secret", true},
		{"bot_token", true},
		{"password", true},
		{"client_secret", true},
		{"refresh_token", true},
		{"api_key", true},
		{"oauth2.client_secret", true},
		{"oauth2.refresh_token", true},
		{"headers.Authorization", true},
		{"headers.X-Custom-Thing", true},
		{"Password", true},
		{"name", false},
		{"username", false},
		{"oauth2.client_id", false},
		{"oauth2.token_url", false},
		{"url", false},
		{"headers", false},
		{"team_id", false},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			if got := IsSecretKey(tc.key); got != tc.want {
				t.Fatalf("IsSecretKey(%q) = %v, want %v", tc.key, got, tc.want)
			}
		})
	}
}
