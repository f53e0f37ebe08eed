package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/insights"
)

// Validate checks every value that can be checked without touching the network or the disk and returns
// one error per problem, naming its key; nil means valid. Connector entries are only checked for a
// unique name here: each connector package validates the rest of its own section.
func (c *Config) Validate() []error {
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}

	if err := checkListen(c.HTTP.Listen); err != nil {
		add("http.listen", "%v", err)
	}
	if !(c.HTTP.RateLimit.PerSecond > 0) {
		add("http.rate_limit.per_second", "must be greater than 0, got %v", c.HTTP.RateLimit.PerSecond)
	}
	if c.HTTP.MaxConnections < 1 {
		add("http.max_connections", "must be at least 1, got %d", c.HTTP.MaxConnections)
	}
	if c.HTTP.MaxConnectionsPerClient < 0 {
		add("http.max_connections_per_client", "must be 0 (no per-client bound) or more, got %d", c.HTTP.MaxConnectionsPerClient)
	}
	if c.HTTP.MaxHeaderBytes < 4<<10 || c.HTTP.MaxHeaderBytes > 1<<20 {
		add("http.max_header_bytes", "must be between 4096 and 1048576, got %d", c.HTTP.MaxHeaderBytes)
	}
	if c.HTTP.RateLimit.Burst < 1 {
		add("http.rate_limit.burst", "must be at least 1, got %d", c.HTTP.RateLimit.Burst)
	}
	for key, d := range map[string]int64{
		"http.read_header_timeout": int64(c.HTTP.ReadHeaderTimeout),
		"http.read_timeout":        int64(c.HTTP.ReadTimeout),
		"http.write_timeout":       int64(c.HTTP.WriteTimeout),
		"http.shutdown_timeout":    int64(c.HTTP.ShutdownTimeout),
	} {
		if d <= 0 {
			add(key, "must be a positive duration such as \"30s\"")
		}
	}

	if err := checkStoreURL(c.Store.URL); err != nil {
		add("store.url", "%v", err)
	}

	if c.Console.MaxUpload <= 0 {
		add("console.max_upload", "must be a positive number of bytes; got %d", c.Console.MaxUpload)
	}
	if u := c.Console.PublicURL; u != "" {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.RawQuery != "" || p.Fragment != "" {
			add("console.public_url", "must be an http:// or https:// URL such as https://feedback.example.com; got %q", u)
		}
	}

	if _, err := logrus.ParseLevel(c.Log.Level); err != nil || c.Log.Level == "" {
		add("log.level", "must be one of trace, debug, info, warn, error; got %q", c.Log.Level)
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		add("log.format", "must be text or json; got %q", c.Log.Format)
	}

	for _, list := range []struct {
		key     string
		domains []string
	}{
		{"companies.personal_domains.add", c.Companies.PersonalDomains.Add},
		{"companies.personal_domains.remove", c.Companies.PersonalDomains.Remove},
	} {
		for _, d := range list.domains {
			if !looksLikeDomain(d) {
				add(list.key, "%q is not a domain name", d)
			}
		}
	}

	errs = append(errs, c.validateSources()...)
	errs = append(errs, c.validateInsights()...)
	errs = append(errs, c.validateNotify()...)
	errs = append(errs, c.Connectors.validateNames()...)
	errs = append(errs, c.validateEvents()...)
	sortErrors(errs)
	return errs
}

func (c *Config) validateInsights() []error {
	var errs []error
	switch c.Insights.Provider {
	case "builtin", "off":
	case "openai":
		o := c.Insights.OpenAI
		if _, err := insights.CheckBaseURL(o.BaseURL); err != nil {
			errs = append(errs, fmt.Errorf("insights.openai.base_url: %w when provider is openai", err))
		}
		if strings.TrimSpace(o.Model) == "" {
			errs = append(errs, fmt.Errorf("insights.openai.model: is required when provider is openai"))
		}
		if o.Timeout < 0 {
			errs = append(errs, fmt.Errorf("insights.openai.timeout: must be a duration such as 90s (0: the default minute), got %v", o.Timeout))
		}
	default:
		errs = append(errs, fmt.Errorf("insights.provider: must be builtin, openai or off; got %q", c.Insights.Provider))
	}
	if c.Insights.Workers < 0 {
		errs = append(errs, fmt.Errorf("insights.workers: must be 0 or more, got %d", c.Insights.Workers))
	}
	return errs
}

// validateNames requires a unique name per entry within a kind: the name keys checkpoints, leases and
// GET /api/connectors, so two entries sharing one would silently share state.
func (c Connectors) validateNames() []error {
	var errs []error
	kinds := make([]string, 0, len(c))
	for kind := range c {
		kinds = append(kinds, kind)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		seen := map[string]bool{}
		for i, entry := range c[kind] {
			name, _ := entry["name"].(string)
			key := fmt.Sprintf("connectors.%s[%d].name", kind, i)
			switch {
			case strings.TrimSpace(name) == "":
				errs = append(errs, fmt.Errorf("%s: is required", key))
			case seen[name]:
				errs = append(errs, fmt.Errorf("%s: %q is used by another %s entry", key, name, kind))
			}
			seen[name] = true
		}
	}
	return errs
}

func checkListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("must be host:port (e.g. 127.0.0.1:8080 or :8080), got %q", addr)
	}
	if host != "" && net.ParseIP(host) == nil && !looksLikeDomain(host) {
		return fmt.Errorf("host %q is neither an IP address nor a host name", host)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q must be a number from 0 to 65535", port)
	}
	return nil
}

// checkStoreURL never quotes the URL: it may carry a password.
func checkStoreURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("is not a URL (expected sqlite://PATH or postgres://USER:PASSWORD@HOST:5432/DB)")
	}
	switch u.Scheme {
	case "sqlite":
		if u.Host+u.Path == "" && u.Opaque == "" {
			return fmt.Errorf("sqlite URL needs a file path, e.g. sqlite://./feedbridge-data/feedbridge.db")
		}
	case "postgres":
		if u.Host == "" {
			return fmt.Errorf("postgres URL needs a host, e.g. postgres://user:pass@db:5432/feedbridge")
		}
	default:
		return fmt.Errorf("scheme must be sqlite:// or postgres://, got %q", u.Scheme)
	}
	return nil
}

func looksLikeDomain(s string) bool {
	if s == "" || len(s) > 253 || strings.ContainsAny(s, "@/: \t") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
	}
	return true
}

// sortErrors orders problems by key so that `config check` prints them the same way every time.
func sortErrors(errs []error) {
	slices.SortStableFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
}
