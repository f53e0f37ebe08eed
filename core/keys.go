package core

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"
)

const (
	keyPrefix   = "fbk_"
	keyBodyLen  = 40
	base62Chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// NewAPIKeySecret returns a fresh key: "fbk_" and 40 base62 characters from crypto/rand.
func NewAPIKeySecret() (string, error) {
	var b strings.Builder
	b.WriteString(keyPrefix)
	max := big.NewInt(int64(len(base62Chars)))
	for i := 0; i < keyBodyLen; i++ {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		b.WriteByte(base62Chars[n.Int64()])
	}
	return b.String(), nil
}

// HashAPIKey is the only form in which a key is stored.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// wellFormedKey rejects obvious garbage before touching the store.
func wellFormedKey(key string) bool {
	body, ok := strings.CutPrefix(key, keyPrefix)
	if !ok || len(body) != keyBodyLen {
		return false
	}
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62Chars, body[i]) < 0 {
			return false
		}
	}
	return true
}
