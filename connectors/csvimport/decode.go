package csvimport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
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

// Encodings are the encodings a person can choose instead of the detected one; EncUTF8 stands for both
// kinds of UTF-8.
var Encodings = []string{EncUTF8, EncUTF16LE, EncUTF16BE, EncWindows1252}

// CheckEncoding accepts "" (detect) and the names in Encodings.
func CheckEncoding(enc string) error {
	if enc == "" || enc == EncUTF8BOM {
		return nil
	}
	for _, e := range Encodings {
		if e == enc {
			return nil
		}
	}
	return fmt.Errorf("encoding %q: must be one of %s", enc, strings.Join(Encodings, ", "))
}

// decode wraps raw so that it yields UTF-8, and names the encoding it found; a chosen encoding (not "")
// is used instead of the one the bytes suggest, skipping its byte order mark if the input has one.
func decode(raw io.Reader, chosen string) (io.Reader, string, error) {
	if err := CheckEncoding(chosen); err != nil {
		return nil, "", err
	}
	br := bufio.NewReaderSize(raw, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, "", err
	}
	atEOF := err == io.EOF
	if chosen != "" {
		return decodeAs(br, head, chosen), named(head, chosen), nil
	}
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

var boms = map[string][]byte{EncUTF8BOM: {0xEF, 0xBB, 0xBF}, EncUTF16LE: {0xFF, 0xFE}, EncUTF16BE: {0xFE, 0xFF}}

// named is the chosen encoding as Reader.Encoding reports it: UTF-8 with its mark is EncUTF8BOM.
func named(head []byte, chosen string) string {
	if (chosen == EncUTF8 || chosen == EncUTF8BOM) && bytes.HasPrefix(head, boms[EncUTF8BOM]) {
		return EncUTF8BOM
	}
	if chosen == EncUTF8BOM {
		return EncUTF8
	}
	return chosen
}

func decodeAs(br *bufio.Reader, head []byte, chosen string) io.Reader {
	enc := named(head, chosen)
	if bom := boms[enc]; bom != nil && bytes.HasPrefix(head, bom) {
		_, _ = br.Discard(len(bom))
	}
	switch enc {
	case EncUTF16LE:
		return transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder())
	case EncUTF16BE:
		return transform.NewReader(br, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder())
	case EncWindows1252:
		return transform.NewReader(br, charmap.Windows1252.NewDecoder())
	}
	return transform.NewReader(br, utf8Fallback{})
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
