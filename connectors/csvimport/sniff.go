package csvimport

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"

	"github.com/feedbridge/feedbridge/core"
)

// Delimiters are the delimiters a file may use, detected or chosen; when detecting, their order breaks
// ties.
var Delimiters = []rune{',', ';', '\t', '|'}

// CheckDelimiter accepts 0 (detect) and the runes in Delimiters.
func CheckDelimiter(d rune) error {
	if d == 0 || slices.Contains(Delimiters, d) {
		return nil
	}
	return fmt.Errorf("delimiter %q: must be a comma, a semicolon, a tab or a vertical bar", d)
}

// delimiterNames are the words that choose a delimiter, in the order of Delimiters: the console's preview
// form, the command line and a connector entry all take these, so that none needs a tab typed or quoted.
var delimiterNames = []string{"comma", "semicolon", "tab", "bar"}

// ParseDelimiter reads a delimiter chosen by its word ("" for detecting it, 0).
func ParseDelimiter(name string) (rune, error) {
	if name == "" {
		return 0, nil
	}
	if i := slices.Index(delimiterNames, name); i >= 0 {
		return Delimiters[i], nil
	}
	return 0, fmt.Errorf("must be comma, semicolon, tab or bar, not %q", core.Truncate(name, 20, "…"))
}

// DelimiterName is the word that chooses d, "" for 0 or a rune not in Delimiters.
func DelimiterName(d rune) string {
	if i := slices.Index(Delimiters, d); i >= 0 {
		return delimiterNames[i]
	}
	return ""
}

const sniffRecords = 50

// sniffDelimiter picks the delimiter under which the sample's first records keep to the quoting rules
// and split into as many fields as the header, preferring more fields. A header that no candidate splits is a one-column file,
// read with ','. complete says the sample is the whole input (else its last record may be cut short).
func sniffDelimiter(sample []byte, complete bool) byte {
	best, bestShare, bestFields, bestLenient := byte(','), -1.0, 1, 0
	for _, r := range Delimiters {
		d := byte(r)
		sp := newSplitter(bufio.NewReader(bytes.NewReader(sample)), d, len(sample)+1)
		var counts []int
		for len(counts) < sniffRecords+1 {
			rec, err := sp.next()
			if err != nil {
				break
			}
			if rec.err == nil && !blank(rec.fields) {
				counts = append(counts, len(rec.fields))
			}
		}
		if !complete && len(counts) > 1 {
			counts = counts[:len(counts)-1]
		}
		if len(counts) == 0 || counts[0] < 2 {
			continue
		}
		share := 1.0 // the share of the other records that have as many fields as the header
		if rows := counts[1:]; len(rows) > 0 {
			agree := 0
			for _, n := range rows {
				if n == counts[0] {
					agree++
				}
			}
			share = float64(agree) / float64(len(rows))
		}
		better := bestShare < 0 || sp.lenient < bestLenient ||
			(sp.lenient == bestLenient && (share > bestShare || (share == bestShare && counts[0] > bestFields)))
		if better {
			best, bestShare, bestFields, bestLenient = d, share, counts[0], sp.lenient
		}
	}
	return best
}

// blank reports whether a record has no content: a blank line.
func blank(fields []string) bool {
	for _, f := range fields {
		if f != "" {
			return false
		}
	}
	return true
}
