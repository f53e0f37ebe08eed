package config

import (
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"time"
)

// Mask replaces every secret in Redacted.
const Mask = "***"

// Redacted returns the effective configuration keyed like the YAML file, for `feedbridge config show`.
// Every secret is "***": secret fields (in connector entries, those the kind's spec types as secrets),
// the password inside store.url, and a password in any URL value. Empty secrets stay "" so that a missing one shows.
func (c *Config) Redacted() map[string]any {
	return redactStruct(reflect.ValueOf(*c))
}

func redactStruct(v reflect.Value) map[string]any {
	out := map[string]any{}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("koanf")
		if name == "" {
			continue
		}
		fv := v.Field(i)
		switch {
		case isSection(f.Type):
			out[name] = redactStruct(fv)
		case f.Type == reflect.TypeFor[Subscribers]():
			out[name] = redactEvents(fv.Interface().(Subscribers))
		case f.Type == reflect.TypeFor[Connectors]():
			out[name] = redactConnectors(fv.Interface().(Connectors))
		case f.Type == durationType:
			out[name] = time.Duration(fv.Int()).String()
		case f.Type.Kind() == reflect.String:
			out[name] = redactString(f.Tag.Get("secret") == "true", fv.String())
		default:
			out[name] = redactAny(fv.Interface())
		}
	}
	return out
}

// redactAny copies a non-string leaf (a list of domains, a number) for printing.
func redactAny(v any) any {
	if x, ok := v.([]string); ok {
		return append([]string{}, x...)
	}
	return v
}

func redactString(secret bool, s string) string {
	if s == "" {
		return ""
	}
	if secret {
		return Mask
	}
	if strings.Contains(s, "://") {
		return redactURL(s)
	}
	return redactKeywords(s)
}

// keywordSecret finds a password in a libpq keyword/value connection string ("host=db password=s3cret" or
// password='with spaces'), which is no URL.
var keywordSecret = regexp.MustCompile(`(?i)\b((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s']\S*)`)

// redactKeywords masks the values of password keywords in a string that is not a URL.
func redactKeywords(s string) string {
	if !strings.Contains(strings.ToLower(s), "password") {
		return s
	}
	return keywordSecret.ReplaceAllString(s, "${1}"+Mask)
}

// redactURL masks the password of a URL's user info and password-like query parameters (libpq accepts
// ?password=); anything that is not such a URL is returned as it is.
func redactURL(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		// Unparseable but URL-shaped: it might still carry a password, so show nothing of it.
		return Mask
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "MASKED")
	}
	q := u.Query()
	changed := false
	for k := range q {
		if secretParam(k) {
			q.Set(k, "MASKED")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	// url.String would escape "***"; a placeholder keeps the mask readable.
	return strings.ReplaceAll(u.String(), "MASKED", Mask)
}

// secretParam reports whether a query parameter's name suggests a credential: export links carry them as
// ?token=, ?key=, ?sig= and the like (libpq as ?sslpassword=).
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, part := range []string{"token", "secret", "key", "sig", "password", "passwd", "auth", "credential"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}
