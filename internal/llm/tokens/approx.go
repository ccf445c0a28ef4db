package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Approx estimates tokens without a vocabulary, in one pass over the text.
// It counts features that byte-pair encodings treat differently (words and
// their length, digit groups, punctuation, line breaks, runs of
// indentation, CJK and other non-ASCII characters) and weighs them with
// factors fitted by least squares against cl100k_base on the samples in
// testdata/corpus, then raised by a safety margin so that the estimate errs
// high. docs/mcp.md records the calibration; `go test ./tokens -run
// TestCalibrate -calibrate` reruns it.
//
// Its zero value is ready to use.
type Approx struct{}

// Name implements [Counter].
func (Approx) Name() string { return SpecApprox }

// Weights of each feature, in thousandths of a token (see [Approx]).
const (
	wWord       = 890  // per run of ASCII letters
	wWordChar   = 85   // per letter of such a run
	wDigitGroup = 1740 // per group of up to three digits
	wPunct      = 330  // per ASCII punctuation or symbol byte
	wNewline    = 380  // per line break
	wSpaceRun   = 1550 // per run of whitespace other than one space
	wCJK        = 1040 // per Han, kana or Hangul character
	wOtherRune  = 445  // per other non-ASCII character
	// approxMargin raises the fitted estimate, in percent.
	approxMargin = 110
)

// features are the counts Approx weighs.
type features struct {
	words, wordChars, digitGroups, punct, newlines, spaceRuns, cjk, other int
}

func (f features) weighed() int {
	milli := f.words*wWord + f.wordChars*wWordChar + f.digitGroups*wDigitGroup +
		f.punct*wPunct + f.newlines*wNewline + f.spaceRuns*wSpaceRun + f.cjk*wCJK + f.other*wOtherRune
	return (milli*approxMargin/100 + 999) / 1000
}

// Count implements [Counter].
func (Approx) Count(text string) int {
	if text == "" {
		return 0
	}
	return max(1, countFeatures(text).weighed())
}

type runKind int

const (
	runNone runKind = iota
	runLetters
	runDigits
	runSpace
)

// countFeatures scans text once.
func countFeatures(text string) features {
	var f features
	kind, runLen := runNone, 0
	flush := func() {
		switch kind {
		case runLetters:
			f.words++
			f.wordChars += runLen
		case runDigits:
			f.digitGroups += (runLen + 2) / 3
		case runSpace:
			if runLen > 1 {
				f.spaceRuns++
			}
		}
		kind, runLen = runNone, 0
	}
	extend := func(k runKind) {
		if kind != k {
			flush()
			kind = k
		}
		runLen++
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z':
				extend(runLetters)
			case c >= 'A' && c <= 'Z' && kind == runLetters && camelBreak(text, i-1):
				// An upper-case letter after a lower-case one starts a
				// new word (camelCase), as BPE merges tend to split there.
				flush()
				extend(runLetters)
			case c >= 'A' && c <= 'Z':
				extend(runLetters)
			case c >= '0' && c <= '9':
				extend(runDigits)
			case c == '\n':
				flush()
				f.newlines++
			case c == ' ' || c == '\t' || c == '\r':
				extend(runSpace)
			default:
				flush()
				f.punct++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		flush()
		if isCJK(r) {
			f.cjk++
		} else {
			f.other++
		}
	}
	flush()
	return f
}

// camelBreak reports whether text[i] follows a lower-case ASCII letter.
func camelBreak(text string, i int) bool {
	return i >= 1 && text[i-1] >= 'a' && text[i-1] <= 'z'
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef)
}
