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

// asciiSpace is the only whitespace a secret or a presented credential is trimmed of or judged blank by: a
// non-breaking space or any other Unicode space is part of the value, never padding, so it can neither make
// a secret look present nor make a presented token match an empty one.
const asciiSpace = " \t\r\n\v\f"

// ErrBlankSecret is a secret that was given but holds nothing but ASCII whitespace. Anyone can sign with an
// empty HMAC key or present an empty token, so such a secret is refused, never used.
var ErrBlankSecret = errors.New("secret: is empty or blank")

// TrimASCII trims ASCII whitespace only; see asciiSpace.
func TrimASCII(s string) string { return strings.Trim(s, asciiSpace) }

// Value returns the secret: the value itself, or the content of its file without one trailing newline.
// Errors name the file, never its content. A secret that was given ("file:" or a literal) but is blank is
// ErrBlankSecret; only a secret not given at all ("") reads as "" without an error, for optional keys.
func (s Secret) Value() (string, error) {
	if s == "" {
		return "", nil
	}
	v, err := s.read()
	if err != nil {
		return "", err
	}
	if TrimASCII(v) == "" {
		if path, ok := strings.CutPrefix(string(s), secretPrefix); ok {
			return "", fmt.Errorf("%w: file %s", ErrBlankSecret, path)
		}
		return "", ErrBlankSecret
	}
	return v, nil
}

// Required is Value for a secret that authenticates requests (a signing key, a bearer token): one not
// given is ErrBlankSecret too, so a request is never checked against an empty key.
func (s Secret) Required() (string, error) {
	if s == "" {
		return "", ErrBlankSecret
	}
	return s.Value()
}

// read resolves the secret without judging it.
func (s Secret) read() (string, error) {
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
