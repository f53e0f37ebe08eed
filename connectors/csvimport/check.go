package csvimport

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/feedbridge/feedbridge/core"
)

// checkBatch stands in for SubmitBatch on a dry run: it applies the limits the service would, with the
// service's error texts, and writes nothing. Duplicates of earlier imports cannot be seen without asking
// the store, so a dry run counts them as created.
func checkBatch(subs []core.Submission) []core.BatchResult {
	out := make([]core.BatchResult, len(subs))
	for i, s := range subs {
		out[i] = core.BatchResult{Created: true, Err: checkSubmission(s)}
		if out[i].Err != nil {
			out[i].Created = false
		}
	}
	return out
}

func checkSubmission(s core.Submission) error {
	switch n := utf8.RuneCountInString(strings.TrimSpace(s.Title)); {
	case n == 0:
		return ErrTitleRequired
	case n > core.MaxTitle:
		return errors.New("title is too long")
	}
	if utf8.RuneCountInString(s.Description) > core.MaxDescription {
		return errors.New("description is too long")
	}
	if utf8.RuneCountInString(s.CustomerName) > core.MaxCustomerName {
		return errors.New("customer_name is too long")
	}
	if e := strings.TrimSpace(s.CustomerEmail); e != "" {
		if _, err := core.ParseEmail(e); err != nil {
			return errors.New("invalid customer_email")
		}
	}
	if len(s.TagIDs) > core.MaxTags {
		return errors.New("too many tags")
	}
	return nil
}
