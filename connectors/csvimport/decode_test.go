package csvimport

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	pad := strings.Repeat("a,b\n", sniffBytes/4) // pushes what follows past the sniffed prefix
	tests := []struct {
		name    string
		in      []byte
		enc     string
		want    string
		wantEnd string // when set, only the end of the output is compared
	}{
		{"utf-8", []byte("é,ü\n"), EncUTF8, "é,ü\n", ""},
		{"utf-8 bom", []byte("\xEF\xBB\xBFé\n"), EncUTF8BOM, "é\n", ""},
		{"utf-16le bom", []byte("\xFF\xFEa\x00\xE9\x00"), EncUTF16LE, "aé", ""},
		{"utf-16be bom", []byte("\xFE\xFF\x00a\x00\xE9"), EncUTF16BE, "aé", ""},
		{"windows-1252", []byte("caf\xE9 \x80\n"), EncWindows1252, "café €\n", ""},
		{"rune split by the sniff boundary stays utf-8", append([]byte(strings.Repeat("x", sniffBytes-1)), "é"...), EncUTF8, "", "xé"},
		{"windows-1252 byte after the sniffed prefix", []byte(pad + "caf\xE9 \x93q\x94\n"), EncUTF8, "", "café “q”\n"},
		{"valid utf-8 after the prefix untouched", []byte(pad + "ça 🎉\n"), EncUTF8, "", "ça 🎉\n"},
		{"empty", nil, EncUTF8, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, enc, err := decode(bytes.NewReader(tt.in), "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if enc != tt.enc {
				t.Errorf("encoding %s, want %s", enc, tt.enc)
			}
			if tt.wantEnd != "" {
				if !strings.HasSuffix(string(got), tt.wantEnd) {
					t.Errorf("output ends %q, want %q", got[max(0, len(got)-20):], tt.wantEnd)
				}
				return
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestErrorsFileName(t *testing.T) {
	tests := map[string]string{
		"export.csv":         "export.errors.csv",
		"/in/dir/Export.CSV": "Export.errors.csv",
		"noext":              "noext.errors.csv",
		"archive.2024.csv":   "archive.2024.errors.csv",
		".hidden":            ".hidden.errors.csv",
	}
	for in, want := range tests {
		if got := ErrorsFileName(in); got != want {
			t.Errorf("ErrorsFileName(%q) = %q, want %q", in, got, want)
		}
	}
}
