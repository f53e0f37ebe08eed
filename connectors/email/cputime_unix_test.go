//go:build unix

package email

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// machineCPU is the busy CPU time (every state but idle and iowait) of the whole machine so far, from
// /proc/stat; zero where there is none. Beside processCPU it shows what the IMAP server spent.
func machineCPU() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 8 || fields[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, f := range fields[1:] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0
		}
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return time.Duration(busy) * time.Second / 100 // USER_HZ is 100 on Linux
}
