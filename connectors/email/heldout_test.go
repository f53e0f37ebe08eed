package email

import (
	"path/filepath"
	"testing"
)

// The held-out forward corpus (testdata/heldout) was written without looking at the parser, its locale table or
// the forward corpus, to estimate how the parser does on forwards nobody tuned it for (testdata/heldout/README.md).
// minHeldoutAccuracy is the share of fully right messages it must keep; raise it whenever the parser gets better.
const (
	minHeldoutAccuracy = 1.0
	minHeldoutCorpus   = 70
)

func TestHeldoutForwards(t *testing.T) {
	scoreForwards(t, filepath.Join("testdata", "heldout"), minHeldoutCorpus, minHeldoutAccuracy)
}
