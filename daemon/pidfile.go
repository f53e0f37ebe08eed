package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// DefaultPIDFile is where `serve` writes its process id unless --pid-file says otherwise, and where
// `feedbridge reload` looks for it: one file per configuration file, in the runtime directory, so that two
// daemons with different configurations on one machine do not share it.
func DefaultPIDFile(configPath string) string {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	name := "feedbridge.pid"
	if configPath != "" {
		if abs, err := filepath.Abs(configPath); err == nil {
			configPath = abs
		}
		sum := sha256.Sum256([]byte(configPath))
		name = "feedbridge-" + hex.EncodeToString(sum[:6]) + ".pid"
	}
	return filepath.Join(dir, name)
}
