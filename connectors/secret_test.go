package connectors

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretValue(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", maxSecretSize+1)
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
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
		{name: "empty file", value: "file:" + filepath.Join(dir, "empty"), wantErr: "is empty or blank"},
		{name: "blank file", content: " \t\r\n\n", wantErr: "is empty or blank"},
		{name: "blank literal", value: " \t", wantErr: "is empty or blank"},
		{name: "non-breaking space is not blank", value: "\u00a0", want: "\u00a0"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			value := tc.value
			if tc.content != "" {
				p := filepath.Join(dir, "secret"+string(rune('a'+i)))
				if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
				value = "file:" + p
			}
			got, err := Secret(value).Value()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if len(tc.content) >= 10 && strings.Contains(err.Error(), tc.content[:10]) {
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

// TestSecretReadAtUse: a rotated secret file is read again by the next Value, and printing a Secret shows
// nothing of it.
func TestSecretReadAtUse(t *testing.T) {
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Secret("file:" + p)
	if v, err := s.Value(); err != nil || v != "old" {
		t.Fatalf("first read: %q, %v", v, err)
	}
	if err := os.WriteFile(p, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Value(); err != nil || v != "new" {
		t.Fatalf("after rotation: %q, %v", v, err)
	}
	if got := fmt.Sprintf("%v %s %#v %+v", Secret("hunter2"), Secret("hunter2"), Secret("hunter2"), struct{ S Secret }{"hunter2"}); strings.Contains(got, "hunter2") {
		t.Fatalf("a printed Secret shows its value: %s", got)
	}
}

// TestSecretRequired: a secret that authenticates requests is refused when it was not given at all, as
// when it is blank, so no caller ever checks a request against an empty key.
func TestSecretRequired(t *testing.T) {
	for _, tc := range []struct {
		value   Secret
		wantErr bool
	}{{"", true}, {"  ", true}, {"k", false}, {"\u00a0k", false}} {
		v, err := tc.value.Required()
		if (err != nil) != tc.wantErr || err != nil && !errors.Is(err, ErrBlankSecret) || err == nil && v != string(tc.value) {
			t.Errorf("Required(%q) = %q, %v", tc.value, v, err)
		}
	}
}
