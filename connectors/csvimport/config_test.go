package csvimport

import (
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

func validEntry() map[string]any {
	return map[string]any{
		"name": "nightly-crm", "workspace": "0123456789abcdef01234567", "schedule": "0 2 * * *",
		"path": "/var/lib/feedbridge/imports/*.csv", "archive_dir": "/var/lib/feedbridge/imports/done",
		"record_type": "Feedback",
		"mapping":     map[string]any{"title": "Subject", "external_id": "Ticket ID"},
	}
}

func TestBuildValidates(t *testing.T) {
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   string // "" for valid
	}{
		{"the contract's example", func(map[string]any) {}, ""},
		{"url with headers", func(m map[string]any) {
			delete(m, "path")
			m["url"], m["headers"] = "https://crm.example/export.csv?token=x", map[string]any{"Authorization": "Bearer x"}
		}, ""},
		{"descriptor", func(m map[string]any) { m["schedule"] = "@daily" }, ""},
		{"every", func(m map[string]any) { m["schedule"] = "@every 15m" }, ""},
		{"time zone", func(m map[string]any) { m["schedule"] = "CRON_TZ=Europe/Berlin 30 6 * * 1-5" }, ""},
		{"unknown key", func(m map[string]any) { m["scheduel"] = "x" }, "unknown keys: scheduel"},
		{"six fields", func(m map[string]any) { m["schedule"] = "0 0 2 * * *" }, "schedule:"},
		{"bad field", func(m map[string]any) { m["schedule"] = "61 * * * *" }, "schedule:"},
		{"no schedule", func(m map[string]any) { delete(m, "schedule") }, "schedule: is required"},
		{"bad workspace", func(m map[string]any) { m["workspace"] = "acme" }, "workspace:"},
		{"no source", func(m map[string]any) { delete(m, "path") }, "either path or url"},
		{"both sources", func(m map[string]any) { m["url"] = "https://x.example/a.csv" }, "not both"},
		{"plain http", func(m map[string]any) { delete(m, "path"); m["url"] = "http://x.example/a.csv" }, "https://"},
		{"headers with path", func(m map[string]any) { m["headers"] = map[string]any{"X": "y"} }, "headers: only apply to url"},
		{"no archive", func(m map[string]any) { delete(m, "archive_dir") }, "archive_dir: is required"},
		{"archive inside the glob", func(m map[string]any) { m["archive_dir"] = "/var/lib/feedbridge/imports" }, "would be imported again"},
		{"record type", func(m map[string]any) { m["record_type"] = "Bug" }, "record_type:"},
		{"date order", func(m map[string]any) { m["date_order"] = "DD.MM.YYYY" }, "date_order: must be dmy, mdy or ymd"},
		{"chosen reading", func(m map[string]any) { m["encoding"], m["delimiter"] = "windows-1252", "tab" }, ""},
		{"encoding", func(m map[string]any) { m["encoding"] = "latin1" }, `encoding "latin1": must be one of utf-8, utf-16le, utf-16be, windows-1252`},
		{"delimiter", func(m map[string]any) { m["delimiter"] = ";" }, `delimiter: must be comma, semicolon, tab or bar, not ";"`},
		{"mapping field", func(m map[string]any) { m["mapping"] = map[string]any{"subject": "Title"} }, `unknown field "subject"`},
		{"bad glob", func(m map[string]any) { m["path"] = "/in/[a.csv" }, "bad glob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validEntry()
			tt.change(m)
			_, err := Build([]map[string]any{m}, connectors.Env{})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			case tt.want != "" && !strings.HasPrefix(err.Error(), "nightly-crm: "):
				t.Errorf("error %q does not name the entry", err)
			}
		})
	}
}

// The schedule is evaluated against the injected clock, in the spec's time zone.
func TestScheduleNext(t *testing.T) {
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC) // a Thursday
	tests := []struct {
		spec string
		want time.Time
	}{
		{"0 2 * * *", time.Date(2026, 1, 16, 2, 0, 0, 0, time.Local).UTC()},
		{"CRON_TZ=UTC 0 2 * * *", time.Date(2026, 1, 16, 2, 0, 0, 0, time.UTC)},
		{"CRON_TZ=Europe/Berlin 30 6 * * 1-5", time.Date(2026, 1, 16, 5, 30, 0, 0, time.UTC)},
		{"CRON_TZ=UTC @weekly", time.Date(2026, 1, 18, 0, 0, 0, 0, time.UTC)},
		{"@every 90s", now.Add(90 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c := Config{Name: "n", Workspace: string(core.NewID()), Schedule: tt.spec, Path: "/in/*.csv", ArchiveDir: "/done"}
			if err := connectors.ApplyDefaults(&c); err != nil {
				t.Fatal(err)
			}
			spec, err := parseConfig(c)
			if err != nil {
				t.Fatal(err)
			}
			if got := spec.schedule.Next(now); !got.Equal(tt.want) {
				t.Errorf("next = %s, want %s", got.UTC(), tt.want)
			}
		})
	}
}
