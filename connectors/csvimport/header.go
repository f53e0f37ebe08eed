package csvimport

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/feedbridge/feedbridge/core"
)

// The record fields a column can feed. These names are the keys of `mapping:` and `--map`.
const (
	FieldTitle         = "title"
	FieldDescription   = "description"
	FieldCustomerEmail = "customer_email"
	FieldCustomerName  = "customer_name"
	FieldSource        = "source"
	FieldCreatedAt     = "created_at"
	FieldExternalID    = "external_id"
	FieldTags          = "tags"
	FieldRelease       = "release"   // Feature records only
	FieldTimeframe     = "timeframe" // Objective records only
)

type field int

const (
	fTitle field = iota
	fDescription
	fCustomerEmail
	fCustomerName
	fSource
	fCreatedAt
	fExternalID
	fTags
	fRelease
	fTimeframe
	numFields
)

var fieldNames = [numFields]string{FieldTitle, FieldDescription, FieldCustomerEmail, FieldCustomerName,
	FieldSource, FieldCreatedAt, FieldExternalID, FieldTags, FieldRelease, FieldTimeframe}

// aliases are the header names recognised without a mapping, best first: when a file has both a
// "Title" and a "Subject" column, "Title" feeds the title. They are compared normalized (see normHeader).
// "customer" is deliberately absent: in most exports it names the company, not the person.
var aliases = [numFields][]string{
	fTitle:         {"title", "subject", "summary"},
	fDescription:   {"description", "body", "feedback", "comment", "comments", "message", "details", "content", "text"},
	fCustomerEmail: {"customer_email", "email", "e-mail", "email address", "contact email", "requester email"},
	fCustomerName:  {"customer_name", "name", "full name", "contact name", "requester name", "requester"},
	fSource:        {"source", "channel"},
	fCreatedAt:     {"created_at", "created", "date", "created date", "creation date", "created on", "submitted at", "timestamp"},
	fExternalID:    {"external_id", "id", "ticket id"},
	fTags:          {"tags", "tag", "labels"},
	fRelease:       {"release", "target release", "release name", "fix version", "milestone"},
	fTimeframe:     {"timeframe", "time frame", "quarter", "period", "horizon"},
}

// typedFields are the fields that only one record type carries: a column found for them by an alias is
// read only when the import makes that type, and a mapping naming them for another type is refused.
var typedFields = map[field]core.RecordType{fRelease: core.RecordFeature, fTimeframe: core.RecordObjective}

// CheckMappingType refuses a mapping that names a field the record type does not carry (release on a
// Feedback import, say), which would otherwise fail every row.
func CheckMappingType(m map[string]string, t core.RecordType) error {
	for _, k := range sortedKeys(m) {
		if f, ok := fieldByName(k); ok {
			if owner, typed := typedFields[f]; typed && owner != t {
				return fmt.Errorf("mapping: %s is only for %s records, this import makes %s", k, owner, t)
			}
		}
	}
	return nil
}

// normHeader folds a header name for matching: case, white space, '_', '-' and '.' are ignored
// ("Customer E-Mail" matches "customer_email"), as is a stray U+FEFF.
func normHeader(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r), r == '_', r == '-', r == '.', r == '\uFEFF':
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

func fieldByName(name string) (field, bool) {
	for f, n := range fieldNames {
		if n == name {
			return field(f), true
		}
	}
	return 0, false
}

// ValidateMapping checks that every key of a mapping names a field and every value is a header name.
func ValidateMapping(m map[string]string) error {
	for _, k := range sortedKeys(m) {
		if _, ok := fieldByName(k); !ok {
			return fmt.Errorf("mapping: unknown field %q (fields: %s)", k, strings.Join(fieldNames[:], ", "))
		}
		if strings.TrimSpace(m[k]) == "" {
			return fmt.Errorf("mapping: %s: empty column name", k)
		}
	}
	return nil
}

// ParseMapping reads the command line's `--map field=Column` pairs.
func ParseMapping(pairs []string) (map[string]string, error) {
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("mapping: %q is not field=Column", p)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("mapping: %s mapped twice", k)
		}
		m[k] = strings.TrimSpace(v)
	}
	if err := ValidateMapping(m); err != nil {
		return nil, err
	}
	return m, nil
}

// columnMap holds, per field, the index of the column feeding it, or -1.
type columnMap [numFields]int

// resolveColumns matches the header against an explicit mapping first, then the aliases for the fields
// the mapping leaves out; a column taken by the mapping is not also picked by an alias.
func resolveColumns(header []string, mapping map[string]string) (columnMap, error) {
	var cols columnMap
	for f := range cols {
		cols[f] = -1
	}
	if err := ValidateMapping(mapping); err != nil {
		return cols, err
	}
	norm := make([]string, len(header))
	for i, h := range header {
		norm[i] = normHeader(h)
	}
	taken := make([]bool, len(header))
	find := func(name string) int {
		n := normHeader(name)
		for i := range norm {
			if norm[i] == n && !taken[i] {
				return i
			}
		}
		return -1
	}
	for _, k := range sortedKeys(mapping) {
		f, _ := fieldByName(k)
		i := find(mapping[k])
		if i < 0 {
			return cols, fmt.Errorf("mapping: %s: no column %q in the header (%s)", k, mapping[k], quoteList(header))
		}
		cols[f] = i
	}
	for i := range header {
		for f := range cols {
			if cols[f] == i {
				taken[i] = true
			}
		}
	}
	for f := range cols {
		if _, mapped := mapping[fieldNames[f]]; mapped {
			continue
		}
		for _, a := range aliases[f] {
			if i := find(a); i >= 0 {
				cols[f], taken[i] = i, true
				break
			}
		}
	}
	if cols[fTitle] < 0 {
		return cols, fmt.Errorf("no title column: name one with a mapping (header: %s)", quoteList(header))
	}
	return cols, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// quoteList shows header cells in a message, clipped: a broken header can be a whole file long.
func quoteList(ss []string) string {
	q := make([]string, 0, min(len(ss), 20)+1)
	for i, s := range ss {
		if i == 20 {
			q = append(q, "…")
			break
		}
		q = append(q, fmt.Sprintf("%q", core.Truncate(s, 40, "…")))
	}
	return strings.Join(q, ", ")
}
