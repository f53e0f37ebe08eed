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
		"http.max_connections":              "Extension. Most client connections served at once. When the pool is full, a new connection takes the place of the longest-idle one (an idle keep-alive or one that has sent nothing yet); when none is idle it is served on a small reserve that answers only /healthz, /readyz and /metrics (anything else: 503 with Retry-After). Keep it below the process's open-file limit.",
		"http.max_connections_per_client":   "Extension. Most connections one client address holds at once; past it the address's own longest-idle connection is closed, else the new one is served as on a full pool. Loopback peers (a local reverse proxy carries everyone's traffic) are exempt. Behind a proxy on another host every client shares its address: raise this or set 0 (no per-client bound).",
		"http.max_header_bytes":             "Extension. Largest request line and headers in bytes (4096 to 1048576; Go's server allows 4 KiB beyond it); larger: 431.",
		"http.shutdown_timeout":             "Extension. On SIGTERM/SIGINT, how long in-flight requests and connectors get to finish. Keep it below the orchestrator's grace period (Kubernetes: 30s).",
		"store.url":                         "Database. `sqlite://PATH` (relative or absolute) or `postgres://user:pass@host:5432/db?sslmode=…`. Secret: may be `file:/path`; `config show` masks the password.",
		"log.level":                         "trace, debug, info, warn or error.",
		"log.format":                        "text (human) or json (one object per line, for log shippers).",
		"companies.personal_domains.add":    "Extra personal mailbox domains: their senders get a contact but no company.",
		"companies.personal_domains.remove": "Built-in personal domains to treat as company domains after all.",
		"insights.provider":                 "builtin (offline, deterministic), openai (any OpenAI-compatible endpoint) or off.",
		"insights.workers":                  "Concurrent insight jobs per process; 0 runs none here (another replica may).",
		"insights.openai.base_url":          "Chat-completions endpoint base, e.g. `https://api.openai.com/v1`. Required with provider openai. Must be https; plain http only to a loopback address (a model on this machine).",
		"insights.openai.api_key":           "Secret. Bearer key for the endpoint; may be `file:/path`.",
		"insights.openai.model":             "Model name. Required with provider openai.",
		"insights.openai.timeout":           "How long one attempt (request and answer) may take before it is retried; 0 means the default. An extension of the contract.",
		"sources.add":                       "Extra source labels (`Phone`, `Chat`), kept as written, for every workspace: a record's source that matches one ignoring case, spaces, `-`, `_` and `.` takes it instead of `Other`. A connector entry's `source` must be a label of the set (canonical, synonym or added).",
		"console.enabled":                   "Serve the console (the pages for people) on the HTTP listener.",
		"console.upload_dir":                "Folder for CSV files uploaded in the console, kept until imported (a day at most); empty: `feedbridge-uploads` in the system's temporary folder. Replicas behind one address need a shared folder, or sticky sessions.",
		"console.max_upload":                "Largest CSV file the console accepts for import, in bytes; larger: 413.",
		"console.public_url":                "Base URL of the console as people reach it, e.g. `https://feedback.example.com`, used in sign-in links; empty: `http://` and the listen address.",
		"connectors":                        "Connector entries by kind: each kind takes a list of entries, see below.",
		"events":                            "Subscribers that receive the workspace's changes as signed POSTs, see below and docs/events.md. From the environment: `FEEDBRIDGE_EVENTS` as a JSON list.",
		"notify.statuses":                   "Statuses of an Idea or Feature that tell the people who brought it (the Slack user who filed it or saved a linked message, the colleague who forwarded a linked mail); `[]` tells nobody. Any status name of an Idea or Feature, matched as in the API.",
		"notify.customers":                  "Also email the outside customer of an email submission (the original sender). Off: only colleagues hear.",
		"notify.retry_for":                  "Extension. How long a message that cannot be sent is retried (backoff as for events) before it is kept as failed, listed by `feedbridge events failed`.",
		"notify.smtp.server":                "Mail server for email notifications, host:port (587 for starttls, 465 for tls). Empty: no email is sent; Slack replies still are.",
		"notify.smtp.security":              "starttls (upgrade a plain connection, refused if the server does not offer it) or tls (TLS from the start); none only to a loopback address.",
		"notify.smtp.username":              "User for password authentication (PLAIN, only over TLS); empty: no authentication.",
		"notify.smtp.password":              "Secret. Password for `username`; may be `file:/path`.",
		"notify.smtp.from":                  "Sender address of the notifications, e.g. `feedback@example.com`. Required with a server.",
		"notify.smtp.allow_private":         "Extension. Allow a server on a loopback, private or link-local address (checked at each connection), as `allow_private` does for CSV URLs and event subscribers.",
	}
}

// keyRequired names the keys that a setting makes required, and the condition (see requiredText).
func keyRequired() map[string]string {
	return map[string]string{
		"insights.openai.base_url": "with provider openai",
		"insights.openai.model":    "with provider openai",
	}
}
