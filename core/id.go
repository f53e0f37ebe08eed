package core

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"
)

// ID is a 24-character lowercase hex object id: 4 bytes of big-endian Unix seconds, 5 random bytes and a
// 3-byte counter, the layout clients of the original service already know.
type ID string

var (
	idProcess [5]byte
	idCounter atomic.Uint32
)

func init() {
	// The process-random part and counter start are the only package state; they are set once and make ids
	// from concurrent processes (replicas) distinct.
	var seed [8]byte
	if _, err := rand.Read(seed[:]); err != nil {
		panic("core: no randomness for ids: " + err.Error())
	}
	copy(idProcess[:], seed[:5])
	idCounter.Store(binary.BigEndian.Uint32(seed[4:]))
}

// NewID returns a fresh id stamped with the current time.
func NewID() ID { return NewIDAt(time.Now()) }

// NewIDAt returns a fresh id whose time part is t (imports keep a record's original time).
func NewIDAt(t time.Time) ID {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:4], uint32(t.Unix()))
	copy(b[4:9], idProcess[:])
	c := idCounter.Add(1)
	b[9], b[10], b[11] = byte(c>>16), byte(c>>8), byte(c)
	return ID(hex.EncodeToString(b[:]))
}

// ParseID accepts exactly 24 lowercase hex characters.
func ParseID(s string) (ID, error) {
	if !ValidID(s) {
		return "", fmt.Errorf("%q is not a valid id (24 lowercase hex characters)", s)
	}
	return ID(s), nil
}

// ValidID reports whether s has the id layout.
func ValidID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
