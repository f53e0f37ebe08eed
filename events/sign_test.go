package events

import (
	"testing"
	"time"
)

// The expected values were computed outside Go, with
// printf '%s' '1700000000.{"id":"e1"}' | openssl dgst -sha256 -hmac 'whsec-test' -hex
// so a subscriber verifying with openssl agrees with the daemon.
func TestSignature(t *testing.T) {
	at := time.Unix(1700000000, 0)
	cases := []struct {
		name, secret, body, want string
	}{
		{"as openssl computes it", "whsec-test", `{"id":"e1"}`,
			"t=1700000000,v1=f49b81a5e23956df3f1a460f99185bcaaba87e1f98e3ac0f099adb3eaab2cb1c"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Signature([]byte(c.secret), at, []byte(c.body)); got != c.want {
				t.Fatalf("Signature = %s, want %s", got, c.want)
			}
		})
	}
	base := Signature([]byte("whsec-test"), at, []byte(`{"id":"e1"}`))
	for name, other := range map[string]string{
		"another secret": Signature([]byte("whsec-other"), at, []byte(`{"id":"e1"}`)),
		"another time":   Signature([]byte("whsec-test"), at.Add(time.Second), []byte(`{"id":"e1"}`)),
		"another body":   Signature([]byte("whsec-test"), at, []byte(`{"id":"e2"}`)),
	} {
		if other == base {
			t.Errorf("%s signs the same", name)
		}
	}
}
