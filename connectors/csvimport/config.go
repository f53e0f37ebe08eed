package csvimport

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// Config is one `connectors.csv` entry. Besides the documented core keys it takes allow_private,
// timeout and max_bytes for URL sources.
type Config struct {
	Name         string                       `koanf:"name" required:"yes" doc:"Required, unique within the kind. Names the lease, the import runs and the entry in GET /api/connectors."`
	Workspace    string                       `koanf:"workspace" required:"yes" doc:"Required. Id of the workspace that receives the records."`
	Schedule     string                       `koanf:"schedule" required:"yes" doc:"Cron, 5 fields; descriptors (@daily) and CRON_TZ= allowed."`
	Path         string                       `koanf:"path" required:"path or url" doc:"Glob of local files to import; or, instead, url."`
	URL          string                       `koanf:"url" required:"path or url" doc:"https:// address to fetch the CSV from, instead of path."`
	Headers      map[string]connectors.Secret `koanf:"headers" doc:"Optional with url: request headers; every value is a secret, read again at each fetch."`
	ArchiveDir   string                       `koanf:"archive_dir" required:"yes" doc:"Imported files and their .errors.csv go here."`
	RecordType   string                       `koanf:"record_type" default:"Feedback" doc:"Type of the created records."`
	Mapping      map[string]string            `koanf:"mapping" doc:"Record field → CSV header: title, description, customer_email, customer_name, source, created_at, external_id, tags."`
	AllowPrivate bool                         `koanf:"allow_private" doc:"With url: allow loopback and private addresses (refused by default)."`
	Timeout      time.Duration                `koanf:"timeout" default:"60s" doc:"With url: give up when no byte arrives for this long."`
	MaxBytes     int64                        `koanf:"max_bytes" default:"1073741824" doc:"With url: refuse larger responses (bytes)."`
	DateOrder    string                       `koanf:"date_order" doc:"How created_at dates of digits only are read: dmy (03.11.2026 is 3 November), mdy or ymd; applies to every row. Without it such a date is refused when both orders make a date. ISO, RFC 3339 and spelled-out months are read as written either way."`
	Encoding     string                       `koanf:"encoding" doc:"Read every file as utf-8, utf-16le, utf-16be or windows-1252 instead of detecting the encoding from its first bytes."`
	Delimiter    string                       `koanf:"delimiter" doc:"Split every file by comma, semicolon, tab or bar instead of detecting the delimiter from its first records."`
}

// entrySpec is a validated Config, ready to run (its name and workspace are checked by connectors.Entries).
type entrySpec struct {
	Config
	recordType core.RecordType
	schedule   cron.Schedule
	url        *url.URL
	dateOrder  DateOrder
	delimiter  rune
}

// parseConfig validates an entry (all but its name and workspace) without touching the network or the file system.
func parseConfig(c Config) (*entrySpec, error) {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	e := &entrySpec{Config: c}
	if strings.TrimSpace(c.Schedule) == "" {
		bad("schedule", "is required (cron, e.g. \"0 2 * * *\")")
	} else if s, err := cron.ParseStandard(c.Schedule); err != nil {
		bad("schedule", "%v", err)
	} else {
		e.schedule = s
	}
	switch {
	case c.Path == "" && c.URL == "":
		bad("path", "either path or url is required")
	case c.Path != "" && c.URL != "":
		bad("url", "give either path or url, not both")
	case c.Path != "":
		if _, err := filepath.Match(c.Path, ""); err != nil {
			bad("path", "bad glob pattern: %v", err)
		}
		if len(c.Headers) > 0 {
			bad("headers", "only apply to url")
		}
	default:
		u, err := url.Parse(c.URL)
		switch {
		case err != nil:
			bad("url", "is not a URL")
		case u.Scheme != "https" || u.Host == "":
			bad("url", "must be an https:// address")
		default:
			e.url = u
		}
	}
	if c.ArchiveDir == "" {
		bad("archive_dir", "is required: imported files and errors files go there")
	} else if c.Path != "" {
		if m, _ := filepath.Match(c.Path, filepath.Join(c.ArchiveDir, "x.csv")); m {
			bad("archive_dir", "lies inside path's pattern, so archived files would be imported again")
		}
	}
	if t, ok := core.ParseRecordType(c.RecordType); ok {
		e.recordType = t
	} else {
		bad("record_type", "must be Idea, Feedback, Feature or Objective")
	}
	if err := ValidateMapping(c.Mapping); err != nil {
		errs = append(errs, err)
	} else if err := CheckMappingType(c.Mapping, cmp.Or(e.recordType, core.RecordFeedback)); err != nil {
		errs = append(errs, err)
	}
	if o, err := ParseDateOrder(c.DateOrder); err != nil {
		bad("date_order", "%v", err)
	} else {
		e.dateOrder = o
	}
	if err := CheckEncoding(c.Encoding); err != nil {
		errs = append(errs, err) // it names the key already
	}
	if d, err := ParseDelimiter(c.Delimiter); err != nil {
		bad("delimiter", "%v", err)
	} else {
		e.delimiter = d
	}
	if c.Timeout <= 0 || c.MaxBytes <= 0 {
		bad("timeout", "timeout and max_bytes must be positive")
	}
	return e, errors.Join(errs...)
}

// resolveHeaders reads file: secrets of the request headers. It runs when a fetch starts, so that a
// rotated secret file is picked up without a restart.
func (e *entrySpec) resolveHeaders() (map[string]string, error) {
	out := make(map[string]string, len(e.Headers))
	for k, v := range e.Headers {
		s, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("headers.%s: %w", k, err)
		}
		out[k] = s
	}
	return out, nil
}
