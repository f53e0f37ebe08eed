package webhook

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// Config is one `connectors.webhook` entry: one sender posting to /hooks/<name>.
type Config struct {
	Name      string `koanf:"name" required:"yes" doc:"Required, unique within the kind. The entry answers POST /hooks/<name>."`
	Workspace string `koanf:"workspace" required:"yes" doc:"Required. Id of the workspace that receives the records."`
	Preset    string `koanf:"preset" doc:"zendesk, intercom or typeform: fills the signature settings, mapping and source of that sender; keys given here win."`
	Auth      string `koanf:"auth" default:"hmac" doc:"hmac (a signature over the raw body) or bearer (Authorization: Bearer <token>)."`

	Secret             connectors.Secret `koanf:"secret" required:"with auth hmac" doc:"With auth hmac: the signing key shared with the sender; read again for each request."`
	SignatureHeader    string            `koanf:"signature_header" default:"X-Signature" doc:"With auth hmac: the header carrying the signature."`
	SignaturePrefix    string            `koanf:"signature_prefix" default:"sha256=" doc:"With auth hmac: text before the signature in its header (\"\" for none)."`
	SignatureEncoding  string            `koanf:"signature_encoding" default:"hex" doc:"With auth hmac: hex or base64."`
	SignatureAlgorithm string            `koanf:"signature_algorithm" default:"sha256" doc:"With auth hmac: sha256; sha1 only for senders that offer nothing else (Intercom)."`
	TimestampHeader    string            `koanf:"timestamp_header" doc:"With auth hmac: a header holding the signing time (Unix seconds or RFC 3339); its value is signed before the body and must be within timestamp_window of now."`
	TimestampWindow    time.Duration     `koanf:"timestamp_window" default:"5m" doc:"How far the signing time may be from now."`

	Token connectors.Secret `koanf:"token" required:"with auth bearer" doc:"With auth bearer: the token the sender presents; read again for each request."`

	Mapping           Mapping `koanf:"mapping" doc:"Where each record field is in the payload, as paths (see docs/connectors/webhook.md)."`
	DescriptionFormat string  `koanf:"description_format" default:"text" doc:"text (kept as typed) or html (cleaned by an allow-list and stored; every response gives it as plain text: tags stripped, entities decoded, blocks as line breaks)."`
	Source            string  `koanf:"source" default:"Other" doc:"Source label when the mapping gives none."`
	RecordType        string  `koanf:"record_type" default:"Feedback" doc:"Type of the created records: Feedback or Idea."`
	MaxBody           int64   `koanf:"max_body" default:"1048576" doc:"Largest accepted body in bytes; larger: 413."`

	QueueOver  int           `koanf:"queue_over" default:"20" doc:"A delivery of more items than this is stored as received, answered 202 and turned into records in the background; 0 queues every delivery."`
	QueueAfter time.Duration `koanf:"queue_after" default:"1s" doc:"A delivery whose records are not written within this time is stored instead and answered 202."`
}

// Mapping holds one path per record field. Paths are read from each record element (see Each); a path
// starting with "$." is read from the payload's root.
type Mapping struct {
	Each          string `koanf:"each" doc:"Path to an array: one record per element. Empty: the payload is one record, or one per element when it is an array."`
	Title         string `koanf:"title" doc:"Title; when blank, the first line of the description."`
	Description   string `koanf:"description" doc:"Description; several matched values are joined by blank lines."`
	CustomerEmail string `koanf:"customer_email" doc:"The customer's address."`
	CustomerName  string `koanf:"customer_name" doc:"The customer's name."`
	Source        string `koanf:"source" doc:"A source label (normalized like the API's)."`
	CreatedAt     string `koanf:"created_at" doc:"Creation time: RFC 3339, a date, or Unix seconds."`
	ExternalID    string `koanf:"external_id" doc:"The sender's id of the item: one record per (entry, external id)."`
	Tags          string `koanf:"tags" doc:"Tag labels: a list, or text split at commas and semicolons; matched to the workspace's tags."`
}

// Authentication methods.
const (
	AuthHMAC   = "hmac"
	AuthBearer = "bearer"
)

// entrySpec is a validated entry, ready to serve. Its name and workspace are checked by connectors.Entries,
// which gives ws.
type entrySpec struct {
	Config
	ws         core.ID
	recordType core.RecordType
	html       bool
	sha1       bool
	base64     bool
	prefix     string
	paths      fieldPaths
}

// parseConfig applies the preset to the keys the entry does not give (given says which it does; the kit
// has applied the defaults of the others) and validates the entry (all but what connectors.Entries
// checks), without any network call.
func parseConfig(c Config, given func(key string) bool) (*entrySpec, error) {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if c.Preset != "" {
		p, ok := presets[strings.ToLower(c.Preset)]
		if !ok {
			bad("preset", "must be one of %s, not %q", presetNames(), c.Preset)
		} else {
			c = p.applyTo(c, given)
		}
	}
	e := &entrySpec{Config: c, prefix: c.SignaturePrefix}
	if strings.ContainsAny(c.Name, "/?#% \t") {
		bad("name", "is part of the URL /hooks/<name>: no /, ?, #, %% or spaces")
	}
	switch strings.ToLower(c.Auth) {
	case AuthHMAC:
		if c.Secret.Empty() {
			bad("secret", "is required with auth hmac")
		}
		switch strings.ToLower(c.SignatureEncoding) {
		case "hex":
		case "base64":
			e.base64 = true
		default:
			bad("signature_encoding", "must be hex or base64, not %q", c.SignatureEncoding)
		}
		switch strings.ToLower(c.SignatureAlgorithm) {
		case "sha256":
		case "sha1":
			e.sha1 = true
		default:
			bad("signature_algorithm", "must be sha256 or sha1, not %q", c.SignatureAlgorithm)
		}
		if strings.TrimSpace(c.SignatureHeader) == "" {
			bad("signature_header", "is required with auth hmac")
		}
	case AuthBearer:
		if c.Token.Empty() {
			bad("token", "is required with auth bearer")
		}
	default:
		bad("auth", "must be hmac or bearer, not %q", c.Auth)
	}
	if c.TimestampWindow < 0 {
		bad("timestamp_window", "must be positive")
	}
	switch strings.ToLower(c.DescriptionFormat) {
	case "text":
	case "html":
		e.html = true
	default:
		bad("description_format", "must be text or html, not %q", c.DescriptionFormat)
	}
	switch t, _ := core.ParseRecordType(c.RecordType); t {
	case core.RecordFeedback, core.RecordIdea:
		e.recordType = t
	default:
		bad("record_type", "must be Feedback or Idea, not %q", c.RecordType)
	}
	if c.MaxBody <= 0 || c.MaxBody > 64<<20 {
		bad("max_body", "must be between 1 and 67108864 bytes")
	}
	if c.QueueOver < 0 {
		bad("queue_over", "must be 0 or more")
	}
	if c.QueueAfter < 0 {
		bad("queue_after", "must be positive")
	}
	paths, err := compileMapping(c.Mapping)
	if err != nil {
		errs = append(errs, err)
	}
	e.paths = paths
	return e, errors.Join(errs...)
}

// fieldPaths are the compiled mapping; nil means the field is not mapped.
type fieldPaths struct {
	each                                                                 *path
	title, description, email, name, source, createdAt, externalID, tags *path
}

func compileMapping(m Mapping) (fieldPaths, error) {
	var (
		fp   fieldPaths
		errs []error
	)
	for _, f := range []struct {
		key string
		raw string
		dst **path
	}{
		{"each", m.Each, &fp.each}, {"title", m.Title, &fp.title}, {"description", m.Description, &fp.description},
		{"customer_email", m.CustomerEmail, &fp.email}, {"customer_name", m.CustomerName, &fp.name},
		{"source", m.Source, &fp.source}, {"created_at", m.CreatedAt, &fp.createdAt},
		{"external_id", m.ExternalID, &fp.externalID}, {"tags", m.Tags, &fp.tags},
	} {
		if strings.TrimSpace(f.raw) == "" {
			continue
		}
		p, err := parsePath(f.raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("mapping.%s: %w", f.key, err))
			continue
		}
		*f.dst = p
	}
	if fp.title == nil && fp.description == nil {
		errs = append(errs, errors.New("mapping: map title or description (a blank title takes the description's first line)"))
	}
	return fp, errors.Join(errs...)
}
