package csvimport

import (
	"reflect"
	"strings"
	"testing"
)

func TestNormHeader(t *testing.T) {
	tests := map[string]string{
		"Customer E-Mail": "customeremail",
		" created.AT ":    "createdat",
		"\uFEFFTitle":     "title",
		"Ticket\tID":      "ticketid",
		"ÉTAT":            "état",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := normHeader(in); got != want {
				t.Errorf("normHeader(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestResolveColumns(t *testing.T) {
	tests := []struct {
		name    string
		header  []string
		mapping map[string]string
		want    map[string]int // field → column; fields not named are absent
		err     string
	}{
		{"aliases", []string{"Subject", "Body", "E-mail", "Name"}, nil,
			map[string]int{FieldTitle: 0, FieldDescription: 1, FieldCustomerEmail: 2, FieldCustomerName: 3}, ""},
		{"best alias wins", []string{"Summary", "Title", "Subject"}, nil, map[string]int{FieldTitle: 1}, ""},
		{"first of equal columns", []string{"title", "Title"}, nil, map[string]int{FieldTitle: 0}, ""},
		{"mapping beats alias", []string{"Title", "Headline"}, map[string]string{FieldTitle: "headline"},
			map[string]int{FieldTitle: 1}, ""},
		{"mapped column not reused by an alias", []string{"Body", "Text"}, map[string]string{FieldTitle: "Body"},
			map[string]int{FieldTitle: 0, FieldDescription: 1}, ""},
		{"one column for two fields", []string{"Subject"}, map[string]string{FieldTitle: "Subject", FieldDescription: "Subject"},
			map[string]int{FieldTitle: 0, FieldDescription: 0}, ""},
		{"release and timeframe aliases", []string{"Title", "Fix Version", "Time frame"}, nil,
			map[string]int{FieldTitle: 0, FieldRelease: 1, FieldTimeframe: 2}, ""},
		{"no title", []string{"Body"}, nil, nil, "no title column"},
		{"missing mapped column", []string{"Title"}, map[string]string{FieldTags: "Labels"}, nil, `mapping: tags: no column "Labels"`},
		{"unknown field", []string{"Title"}, map[string]string{"priority": "P"}, nil, `unknown field "priority"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols, err := resolveColumns(tt.header, tt.mapping)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for f, i := range cols {
				if i >= 0 {
					got[fieldNames[f]] = i
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseMapping(t *testing.T) {
	tests := []struct {
		name  string
		pairs []string
		want  map[string]string
		err   string
	}{
		{"pairs", []string{"title=Subject", "external_id = Ticket ID"},
			map[string]string{FieldTitle: "Subject", FieldExternalID: "Ticket ID"}, ""},
		{"value with equals", []string{"title=a=b"}, map[string]string{FieldTitle: "a=b"}, ""},
		{"no equals", []string{"title"}, nil, "is not field=Column"},
		{"empty column", []string{"title="}, nil, "empty column name"},
		{"twice", []string{"title=A", "title=B"}, nil, "mapped twice"},
		{"unknown", []string{"subject=Title"}, nil, `unknown field "subject"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMapping(tt.pairs)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestSplitTags(t *testing.T) {
	tests := map[string][]string{
		"":                 nil,
		"a":                {"a"},
		"a, b;c":           {"a", "b", "c"},
		" ; ,":             nil,
		"Bug;bug;BUG, Ui ": {"Bug", "Ui"},
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := splitTags(in); !reflect.DeepEqual(got, want) {
				t.Errorf("splitTags(%q) = %q, want %q", in, got, want)
			}
		})
	}
}
