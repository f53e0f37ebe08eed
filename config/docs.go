package config

// keyDocs describes every key of Config; a test fails when a field has no entry or an entry no field.
func keyDocs() map[string]string {
	return map[string]string{
		"http.listen":                       "Address the HTTP server listens on, host:port. Use `:8080` or `0.0.0.0:8080` in a container.",
		"http.rate_limit.per_second":        "Requests per second allowed per API key (token bucket refill rate).",
		"http.rate_limit.burst":             "Bucket size per API key: requests allowed at once before 429.",
		"http.read_header_timeout":          "Extension. Time allowed to read request headers (guards against slow clients).",
		"http.read_timeout":                 "Extension. Time allowed to read a whole request, body included.",
		"http.write_timeout":                "Extension. Time allowed to write a response.",
		"http.shutdown_timeout":             "Extension. On SIGTERM/SIGINT, how long in-flight requests and connectors get to finish. Keep it below the orchestrator's grace period (Kubernetes: 30s).",
		"store.url":                         "Database. `sqlite://PATH` (relative or absolute) or `postgres://user:pass@host:5432/db?sslmode=…`. Secret: may be `file:/path`; `config show` masks the password.",
		"log.level":                         "trace, debug, info, warn or error.",
		"log.format":                        "text (human) or json (one object per line, for log shippers).",
		"companies.personal_domains.add":    "Extra personal mailbox domains: their senders get a contact but no company.",
		"companies.personal_domains.remove": "Built-in personal domains to treat as company domains after all.",
		"insights.provider":                 "builtin (offline, deterministic), openai (any OpenAI-compatible endpoint) or off.",
		"insights.workers":                  "Concurrent insight jobs per process; 0 runs none here (another replica may).",
		"insights.openai.base_url":          "Chat-completions endpoint base, e.g. `https://api.openai.com/v1`. Required with provider openai.",
		"insights.openai.api_key":           "Secret. Bearer key for the endpoint; may be `file:/path`.",
		"insights.openai.model":             "Model name. Required with provider openai.",
		"insights.openai.timeout":           "How long one attempt (request and answer) may take before it is retried; 0 means the default. An extension of the contract.",
		"connectors.slack":                  "List of Slack entries, see below.",
		"connectors.email":                  "List of IMAP inbox entries, see below.",
		"connectors.csv":                    "List of scheduled CSV import entries, see below.",
	}
}

// entryKey documents one key of a connector entry. The connector packages own these structs and their
// validation; the descriptions follow contract §4.
type entryKey struct{ Key, Desc string }

func connectorDocs() []struct {
	Kind string
	Keys []entryKey
} {
	common := []entryKey{
		{"name", "Required, unique within the kind. Names checkpoints, leases and the entry in GET /api/connectors."},
		{"workspace", "Required. Id of the workspace that receives the records."},
	}
	return []struct {
		Kind string
		Keys []entryKey
	}{
		{KindSlack, append(common[:2:2],
			entryKey{"signing_secret", "Secret. Slack app signing secret; may be `file:/path`."},
			entryKey{"bot_token", "Secret, optional. Bot token for message-shortcut replies and author emails."},
			entryKey{"team_id", "Optional. Selects this entry for requests from that Slack team."},
			entryKey{"commands", "Slash command → record type, e.g. `{\"/feedback\": feedback, \"/idea\": idea}`."},
		)},
		{KindEmail, append(common[:2:2],
			entryKey{"server", "IMAP server host:port."},
			entryKey{"security", "tls, starttls or none (none: loopback only unless allow_insecure)."},
			entryKey{"username", "Login name."},
			entryKey{"password", "Secret; may be `file:/path`."},
			entryKey{"allow_insecure", "Permit security none to a non-loopback server (credentials travel in clear)."},
			entryKey{"auth", "password or xoauth2."},
			entryKey{"oauth2", "With auth xoauth2: `{token_url, client_id, client_secret, refresh_token}`; client_secret and refresh_token are secrets; token_url must be https (http only to a loopback address)."},
			entryKey{"mailbox", "Mailbox to read, e.g. INBOX."},
			entryKey{"processed_mailbox", "Where read messages go; empty: flag \\Seen and leave in place."},
			entryKey{"failed_mailbox", "Where unparseable messages go; empty: leave them flagged."},
			entryKey{"internal_domains", "Sender domains of colleagues, who are not customers."},
			entryKey{"poll_interval", "Polling period when the server has no IDLE, e.g. 60s."},
			entryKey{"idle", "Use IMAP IDLE when offered."},
		)},
		{KindCSV, append(common[:2:2],
			entryKey{"schedule", "Cron, 5 fields; descriptors (@daily) and CRON_TZ= allowed."},
			entryKey{"path", "Glob of local files to import; or, instead, `url`."},
			entryKey{"url", "https:// address to fetch the CSV from, instead of `path`."},
			entryKey{"headers", "Optional with `url`: request headers; every value is a secret and may be `file:/path`."},
			entryKey{"archive_dir", "Imported files and their `.errors.csv` go here."},
			entryKey{"record_type", "Type of the created records; Feedback by default."},
			entryKey{"mapping", "Record field → CSV header: title, description, customer_email, customer_name, source, created_at, external_id, tags."},
			entryKey{"allow_private", "With `url`: allow loopback and private addresses (refused by default)."},
			entryKey{"timeout", "With `url`: give up when no byte arrives for this long; 60s by default."},
			entryKey{"max_bytes", "With `url`: refuse larger responses; 1 GiB by default."},
		)},
	}
}
