package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// secretPrefix marks a value that names a file holding the secret (Docker and Kubernetes secrets).
const secretPrefix = "file:"

// maxSecretSize guards against pointing a secret at a large file by mistake.
const maxSecretSize = 64 << 10

// ResolveSecret returns v unchanged unless it is "file:/path", in which case it returns that file's content
// without one trailing newline. Errors name the file, never its content.
func ResolveSecret(v string) (string, error) {
	path, ok := strings.CutPrefix(v, secretPrefix)
	if !ok {
		return v, nil
	}
	if strings.TrimSpace(path) == "" {
		return "", errors.New("secret: file: needs a path")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("secret: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretSize+1))
	if err != nil {
		return "", fmt.Errorf("secret: read %s: %w", path, err)
	}
	if len(b) > maxSecretSize {
		return "", fmt.Errorf("secret: %s is larger than %d bytes", path, maxSecretSize)
	}
	s := strings.TrimSuffix(string(b), "\n")
	return strings.TrimSuffix(s, "\r"), nil
}

// isSecretName reports whether a leaf key name holds a secret wherever it appears.
func isSecretName(name string) bool {
	switch strings.ToLower(name) {
	case "signing_secret", "bot_token", "password", "client_secret", "refresh_token", "access_token", "api_key":
		return true
	}
	return false
}

// IsSecretKey reports whether a key holds a secret. key is a leaf name ("password") or a dotted path
// inside a connector entry ("oauth2.client_secret", "headers.Authorization"): every value under a
// `headers` mapping counts, since those carry bearer tokens and API keys.
func IsSecretKey(key string) bool {
	parts := strings.Split(key, ".")
	if isSecretName(parts[len(parts)-1]) {
		return true
	}
	for _, p := range parts[:len(parts)-1] {
		if strings.EqualFold(p, "headers") {
			return true
		}
	}
	return false
}
