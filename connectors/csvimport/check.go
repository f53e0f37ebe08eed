package csvimport

import (
	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// checkBatch stands in for SubmitBatch on a dry run: the service applies every rule and writes nothing.
// Duplicates of earlier imports cannot be seen without writing, so a dry run counts them as created.
func checkBatch(svc connectors.Service, subs []core.Submission) []core.BatchResult {
	out := make([]core.BatchResult, len(subs))
	for i, s := range subs {
		err := svc.Check(s)
		out[i] = core.BatchResult{Created: err == nil, Err: err}
	}
	return out
}
