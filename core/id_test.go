package core

import (
	"testing"
	"time"
)

func TestNewID(t *testing.T) {
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	seen := map[ID]bool{}
	for i := 0; i < 10000; i++ {
		id := NewIDAt(at)
		if !ValidID(string(id)) {
			t.Fatalf("NewIDAt = %q: not a valid id", id)
		}
		if string(id[:8]) != "6b02b618" {
			t.Fatalf("time part of %q does not encode %v", id, at)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "abc", "6921829800000000000000zz", "6921829800000000000000AA", "6921829800000000000000000"} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
}

func TestAPIKeys(t *testing.T) {
	k, err := NewAPIKeySecret()
	if err != nil {
		t.Fatal(err)
	}
	if len(k) != 44 || k[:4] != "fbk_" || !wellFormedKey(k) {
		t.Fatalf("key %q does not have the fbk_ + 40 base62 layout", k)
	}
	if HashAPIKey(k) == HashAPIKey(k+"x") || len(HashAPIKey(k)) != 64 {
		t.Fatal("hash is not a SHA-256 hex digest of the key")
	}
	for _, bad := range []string{"", "fbk_", "fbk_" + k[4:43], k + "a", "xyz_" + k[4:], "fbk_" + k[4:43] + "!"} {
		if wellFormedKey(bad) {
			t.Errorf("wellFormedKey(%q) = true", bad)
		}
	}
}
