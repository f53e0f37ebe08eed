// Package testkit holds small helpers that several packages' tests share.
package testkit

import (
	"bytes"
	"sync"
)

// Buffer is a log sink that a test reads while the code under test writes to it from other goroutines.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
