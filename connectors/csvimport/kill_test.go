package csvimport

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
)

// killChildEnv carries "backend|dsn|workspace|csv path" to the child process of TestKillMidImport.
const killChildEnv = "CSVIMPORT_KILL_CHILD"

// TestKillMidImport kills an importing process with SIGKILL part-way through a file, imports the file
// again, and expects every row exactly once.
func TestKillMidImport(t *testing.T) {
	if spec, child := testkit.ChildSpec(killChildEnv); child {
		killChild(t, spec)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	forEachBackend(t, testKillMidImport)
}

func testKillMidImport(t *testing.T, e *testEnv) {
	const rows = 6_000
	var sb strings.Builder
	sb.WriteString("id,title,body,email\n")
	for i := range rows {
		fmt.Fprintf(&sb, "%d,Row %d,Body of row %d,user%d@acme%d.com\n", i, i, i, i, i%50)
	}
	in := e.write(t, "big.csv", sb.String())

	cmd, out := testkit.StartChild(t, "TestKillMidImport", killChildEnv,
		strings.Join([]string{e.backend, e.dsn, string(e.ws), in}, "|"), testkit.Stdout)
	sc := bufio.NewScanner(out)
	killed := false
	for sc.Scan() {
		var n int
		if _, err := fmt.Sscanf(sc.Text(), "progress %d", &n); err == nil && n >= 600 {
			testkit.Kill9(t, cmd)
			killed = true
			break
		}
	}
	if !killed {
		_ = cmd.Wait()
	}
	if !killed {
		t.Fatal("the child finished before it could be killed")
	}
	before := len(e.records(t, core.RecordFeedback))
	if before == 0 || before >= rows {
		t.Fatalf("%d records after the kill, want some but not all", before)
	}

	run, err := ImportFile(context.Background(), e.svc, e.ws, in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Created+run.Duplicates != rows || run.Duplicates != before || run.Failed != 0 {
		t.Errorf("restart run %+v; %d records existed", run, before)
	}
	if n := len(e.records(t, core.RecordFeedback)); n != rows {
		t.Errorf("%d records, want %d", n, rows)
	}
}

func killChild(t *testing.T, spec string) {
	parts := strings.Split(spec, "|")
	st, err := openStore(context.Background(), parts[0], parts[1])
	if err != nil {
		t.Fatal(err)
	}
	svc := core.NewService(st, core.Options{})
	_, err = ImportFile(context.Background(), svc, core.ID(parts[2]), parts[3], Options{BatchSize: 100, Progress: func(r core.ImportRun) {
		fmt.Printf("progress %d\n", r.Rows)
		time.Sleep(5 * time.Millisecond)
	}})
	t.Logf("child finished: %v", err)
}
