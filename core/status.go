package core

import (
	"strings"
	"unicode"
)

// StatusMerged is the status of a record merged into another; only a merge sets it.
const StatusMerged = "Merged"

// boardStatuses are each type's statuses in board order.
var boardStatuses = map[RecordType][]string{
	RecordFeedback:  {StatusTriage, "Processed", "Archived"},
	RecordIdea:      {StatusTriage, "Under review", "Planned", "In progress", "Done", "Declined"},
	RecordFeature:   {StatusTriage, "Planned", "In progress", "Released"},
	RecordObjective: {StatusTriage, "Active", "Achieved", "Dropped"},
}

// Status of Feedback once it is linked to something.
const StatusProcessed = "Processed"

// Statuses are the statuses a client may set on a record of type t, in board order (Merged is not one).
func Statuses(t RecordType) []string { return append([]string{}, boardStatuses[t]...) }

// statusKey folds a status for matching: case and spaces do not count ("in progress", "InProgress").
func statusKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// statusByKey maps each type's folded statuses to their spelling, and mergedKey is Merged folded: a
// status edit then folds only the input, once, instead of every status of the type on every call.
var (
	statusByKey = func() map[RecordType]map[string]string {
		m := map[RecordType]map[string]string{}
		for t, sts := range boardStatuses {
			m[t] = map[string]string{}
			for _, st := range sts {
				m[t][statusKey(st)] = st
			}
		}
		return m
	}()
	mergedKey = statusKey(StatusMerged)
)

// ParseStatus matches input to a status of type t; merged reports whether it is Merged, which every type
// has but no client may set.
func ParseStatus(t RecordType, s string) (status string, merged, ok bool) {
	return parseStatusKey(t, statusKey(s))
}

// parseStatusKey is ParseStatus of an input already folded by statusKey.
func parseStatusKey(t RecordType, k string) (status string, merged, ok bool) {
	if k == mergedKey {
		return StatusMerged, true, true
	}
	if st, ok := statusByKey[t][k]; ok {
		return st, false, true
	}
	return "", false, false
}
