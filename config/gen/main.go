// Command gen writes the configuration reference generated from the config package to
// docs/config-reference.md. Run it from the module root: go run ./config/gen.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/feedbridge/feedbridge/config"
	_ "github.com/feedbridge/feedbridge/connectors/all" // the reference documents every registered kind
)

func main() {
	out := flag.String("o", config.ReferencePath, "file to write")
	flag.Parse()
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, config.Reference(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
