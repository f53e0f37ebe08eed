package connectors

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Secret is a config value that must never be shown: a field of this type is masked by `config show` and
// documented as a secret. The value may be "file:/path" (Docker and Kubernetes secrets); Value reads the
// file every time it is called, so a rotated secret is picked up without a restart.
type Secret string

// secretPrefix marks a value that names a file holding the secret.
const secretPrefix = "file:"

// maxSecretSize guards against pointing a secret at a large file by mistake.
const maxSecretSize = 64 << 10

// Value returns the secret: the value itself, or the content of its file without one trailing newline.
// Errors name the file, never its content.
func (s Secret) Value() (string, error) {
	path, ok := strings.CutPrefix(string(s), secretPrefix)
	if !ok {
		return string(s), nil
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
	v := strings.TrimSuffix(string(b), "\n")
	return strings.TrimSuffix(v, "\r"), nil
}

// Empty reports whether no secret was given.
func (s Secret) Empty() bool { return s == "" }

// String masks the secret, so printing a config struct by mistake shows nothing.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "***"
}

// GoString masks the secret for %#v as well.
func (s Secret) GoString() string { return s.String() }
