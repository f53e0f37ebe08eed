// Package config loads feedbridge's configuration: built-in defaults, then a YAML file, then
// FEEDBRIDGE_ environment variables, then command-line flags. Unknown keys are rejected by their full dotted
// path, "file:/path" secrets are read from files, and Redacted gives a view safe to print.
package config

import (
	"slices"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// Config is the whole configuration. Each connector kind's entries stay raw because every connector
// package decodes and validates its own section.
type Config struct {
	HTTP       HTTP        `koanf:"http"`
	Store      Store       `koanf:"store"`
	Log        Log         `koanf:"log"`
	Companies  Companies   `koanf:"companies"`
	Insights   Insights    `koanf:"insights"`
	Sources    Sources     `koanf:"sources"`
	Connectors Connectors  `koanf:"connectors"`
	Console    Console     `koanf:"console"`
	Events     Subscribers `koanf:"events"`
	Notify     Notify      `koanf:"notify"`
}

// Notify configures closing the loop: telling the people who brought an Idea or Feature when it moves.
type Notify struct {
	Statuses  []string   `koanf:"statuses"`
	Customers bool       `koanf:"customers"`
	SMTP      NotifySMTP `koanf:"smtp"`
	// RetryFor goes beyond the documented keys: how long a message that cannot be sent is retried.
	RetryFor time.Duration `koanf:"retry_for"`
}

// NotifySMTP is the mail server that email notifications go through; no server sends no email.
type NotifySMTP struct {
	Server       string            `koanf:"server"`
	Security     string            `koanf:"security"`
	Username     string            `koanf:"username"`
	Password     connectors.Secret `koanf:"password" secret:"true"`
	From         string            `koanf:"from"`
	AllowPrivate bool              `koanf:"allow_private"`
}

// Console configures the web pages for people served beside the API.
type Console struct {
	Enabled   bool   `koanf:"enabled"`
	PublicURL string `koanf:"public_url"`
	// UploadDir keeps CSV files uploaded in the console until they are imported, and the failed rows of
	// their runs; MaxUpload bounds one file in bytes.
	UploadDir string `koanf:"upload_dir"`
	MaxUpload int64  `koanf:"max_upload"`
}

// Sources extends the canonical set of source labels for every workspace.
type Sources struct {
	Add []string `koanf:"add"`
}

// HTTP configures the API listener. The timeouts go beyond the documented keys (docs/config-reference.md).
type HTTP struct {
	Listen            string        `koanf:"listen"`
	RateLimit         RateLimit     `koanf:"rate_limit"`
	ReadHeaderTimeout time.Duration `koanf:"read_header_timeout"`
	ReadTimeout       time.Duration `koanf:"read_timeout"`
	WriteTimeout      time.Duration `koanf:"write_timeout"`
	ShutdownTimeout   time.Duration `koanf:"shutdown_timeout"`
	MaxConnections    int           `koanf:"max_connections"`
	// MaxConnectionsPerClient bounds one peer address's share of MaxConnections; 0 turns the bound off.
	MaxConnectionsPerClient int `koanf:"max_connections_per_client"`
	MaxHeaderBytes          int `koanf:"max_header_bytes"`
}

// RateLimit is the token bucket applied per API key.
type RateLimit struct {
	PerSecond float64 `koanf:"per_second"`
	Burst     int     `koanf:"burst"`
}

// Store selects the database: sqlite://PATH or postgres://….
type Store struct {
	URL string `koanf:"url" secret:"url"`
}

// Log configures logrus.
type Log struct {
	Level  string `koanf:"level"`
	Format string `koanf:"format"`
}

// Companies tunes company grouping by email domain.
type Companies struct {
	PersonalDomains PersonalDomains `koanf:"personal_domains"`
}

// PersonalDomains changes the built-in list of personal mailbox domains.
type PersonalDomains struct {
	Add    []string `koanf:"add"`
	Remove []string `koanf:"remove"`
}

// Insights configures the extraction queue.
type Insights struct {
	Provider string `koanf:"provider"`
	Workers  int    `koanf:"workers"`
	OpenAI   OpenAI `koanf:"openai"`
}

// OpenAI points at any OpenAI-compatible chat-completions endpoint. Timeout bounds one attempt (a
// request and its answer); a slow local model may need more than the default minute.
type OpenAI struct {
	BaseURL string        `koanf:"base_url"`
	APIKey  string        `koanf:"api_key" secret:"true"`
	Model   string        `koanf:"model"`
	Timeout time.Duration `koanf:"timeout"`
}

// Connectors holds each kind's entries undecoded, keyed by kind. Which kinds exist and which keys their
// entries take is the connectors registry's knowledge: Load refuses unknown kinds and keys from it, and each
// connector package decodes and validates its own entries.
type Connectors map[string][]map[string]any

// Default returns the built-in defaults, the first layer of every Load.
func Default() Config {
	return Config{
		HTTP: HTTP{
			Listen:            "127.0.0.1:8080",
			RateLimit:         RateLimit{PerSecond: 20, Burst: 40},
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      60 * time.Second,
			ShutdownTimeout:   20 * time.Second,
			MaxConnections:    1024,
			// A quarter of the pool: far above what one well-behaved client opens, and one address can
			// never hold the pool on its own.
			MaxConnectionsPerClient: 256,
			MaxHeaderBytes:          64 << 10,
		},
		Store:      Store{URL: "sqlite://./feedbridge-data/feedbridge.db"},
		Log:        Log{Level: "info", Format: "text"},
		Companies:  Companies{PersonalDomains: PersonalDomains{Add: []string{}, Remove: []string{}}},
		Insights:   Insights{Provider: "builtin", Workers: 2, OpenAI: OpenAI{Timeout: 60 * time.Second}},
		Sources:    Sources{Add: []string{}},
		Connectors: Connectors{},
		Console:    Console{Enabled: true, MaxUpload: 2 << 30},
		Events:     Subscribers{},
		Notify: Notify{Statuses: slices.Clone(core.NotifyStatuses), RetryFor: 24 * time.Hour,
			SMTP: NotifySMTP{Security: "starttls"}},
	}
}
