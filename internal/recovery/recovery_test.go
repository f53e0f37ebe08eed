package recovery

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
)

func TestGuard(t *testing.T) {
	logger, hook := test.NewNullLogger()
	log := logrus.NewEntry(logger)
	run := func(fn func()) (err error) {
		defer Guard(log, "work", &err)
		fn()
		return nil
	}
	if err := run(func() {}); err != nil || len(hook.AllEntries()) != 0 {
		t.Fatalf("no panic: err %v, log %v", err, hook.AllEntries())
	}
	var m map[string]int
	err := run(func() { m["x"] = 1 })
	var re *Error
	if !errors.As(err, &re) || len(re.ID) != 24 {
		t.Fatalf("err %v, want an *Error with an id", err)
	}
	entry := hook.LastEntry()
	if entry == nil || entry.Level != logrus.ErrorLevel || entry.Data["error_id"] != re.ID ||
		!strings.Contains(entry.Data["stack"].(string), "recovery_test.go") {
		t.Fatalf("log entry %+v", entry)
	}
	if strings.Contains(err.Error(), "nil map") {
		t.Errorf("the error shows the panic to whoever reads it: %v", err)
	}

	done := make(chan struct{})
	Go(log, "background", func() { defer close(done); panic("boom") })
	<-done
	// Guard logs after the deferred close has run.
	for deadline := time.Now().Add(5 * time.Second); len(hook.AllEntries()) < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got := hook.LastEntry().Data["panic"]; got != "boom" {
		t.Errorf("logged panic %v", got)
	}
}
