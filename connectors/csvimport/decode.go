package csvimport

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding names reported by Reader.Encoding.
const (
	EncUTF8        = "utf-8"
	EncUTF8BOM     = "utf-8-bom"
	EncUTF16LE     = "utf-16le"
	EncUTF16BE     = "utf-16be"
	EncWindows1252 = "windows-1252"
)

// sniffBytes is how much of the raw input decides the encoding. The whole file is never scanned first,
// so that HTTP bodies and huge files stream; see utf8Fallback for bytes that turn out invalid later.
const sniffBytes = 64 << 10

// decode wraps raw so that it yields UTF-8, and names the encoding it found.
func decode(raw io.Reader) (io.Reader, string, error) {
	br := bufio.NewReaderSize(raw, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, "", err
	}
	atEOF := err == io.EOF
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		_, _ = br.Discard(3)
		return transform.NewReader(br, utf8Fallback{}), EncUTF8BOM, nil
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		_, _ = br.Discard(2)
		return transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()), EncUTF16LE, nil
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		_, _ = br.Discard(2)
		return transform.NewReader(br, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()), EncUTF16BE, nil
	}
	if e, ok := utf16WithoutBOM(head); ok {
		name := EncUTF16LE
		if e == unicode.BigEndian {
			name = EncUTF16BE
		}
		return transform.NewReader(br, unicode.UTF16(e, unicode.IgnoreBOM).NewDecoder()), name, nil
	}
	if !validUTF8Prefix(head, atEOF) {
		return transform.NewReader(br, charmap.Windows1252.NewDecoder()), EncWindows1252, nil
	}
	return transform.NewReader(br, utf8Fallback{}), EncUTF8, nil
}

// validUTF8Prefix reports whether b is valid UTF-8, allowing a rune cut off by the end of the sample.
func validUTF8Prefix(b []byte, atEOF bool) bool {
	if !atEOF {
		// Drop an incomplete rune at the very end: the sample boundary may split one.
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					b = b[:i]
				}
				break
			}
		}
	}
	return utf8.Valid(b)
}

// utf16WithoutBOM recognises BOM-less UTF-16 by its NUL bytes: text made mostly of ASCII has a zero in
// every other byte, which no CSV in a single-byte encoding or UTF-8 has.
func utf16WithoutBOM(head []byte) (unicode.Endianness, bool) {
	n := min(len(head), 1024) &^ 1
	if n < 8 {
		return unicode.LittleEndian, false
	}
	var evenZero, oddZero int
	for i := 0; i < n; i += 2 {
		if head[i] == 0 {
			evenZero++
		}
		if head[i+1] == 0 {
			oddZero++
		}
	}
	pairs := n / 2
	switch {
	case oddZero*10 >= pairs*7 && evenZero*10 < pairs:
		return unicode.LittleEndian, true
	case evenZero*10 >= pairs*7 && oddZero*10 < pairs:
		return unicode.BigEndian, true
	}
	return unicode.LittleEndian, false
}

// utf8Fallback passes valid UTF-8 through and reads each byte that is not part of a valid sequence as
// Windows-1252. A file that looked like UTF-8 in its first 64 KiB but holds a Windows-1252 byte later
// (an export concatenated from two sources, say) thus loses no character to U+FFFD.
type utf8Fallback struct{ transform.NopResetter }

func (utf8Fallback) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		c := src[nSrc]
		if c < utf8.RuneSelf {
			if nDst >= len(dst) {
				return nDst, nSrc, transform.ErrShortDst
			}
			dst[nDst] = c
			nDst++
			nSrc++
			continue
		}
		r, size := utf8.DecodeRune(src[nSrc:])
		if r == utf8.RuneError && size == 1 {
			if !atEOF && !utf8.FullRune(src[nSrc:]) {
				return nDst, nSrc, transform.ErrShortSrc
			}
			r = charmap.Windows1252.DecodeByte(c)
			if utf8.RuneLen(r) > len(dst)-nDst {
				return nDst, nSrc, transform.ErrShortDst
			}
			nDst += utf8.EncodeRune(dst[nDst:], r)
			nSrc++
			continue
		}
		if size > len(dst)-nDst {
			return nDst, nSrc, transform.ErrShortDst
		}
		nDst += copy(dst[nDst:], src[nSrc:nSrc+size])
		nSrc += size
	}
	return nDst, nSrc, nil
}
