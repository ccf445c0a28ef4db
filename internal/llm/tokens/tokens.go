// Package tokens estimates how many tokens a text costs a model, for the
// context guard (package ctxguard). It holds the [Counter] interface, the
// `tokenizer` setting's spellings and [Approx], a fast estimate calibrated
// against OpenAI's byte-pair encodings that errs on the high side, and it
// imports only the standard library.
//
// Exact OpenAI counts live in the subpackage internal/llm/tokens/tiktoken, whose New
// reads the per-model `tokenizer` setting: its vocabularies weigh megabytes
// of compiled-in data, so only a binary that asks for exact counts (ai-agent)
// links them. salve's heal estimates with [Approx].
package tokens

import "errors"

// Counter estimates the tokens of a text. Implementations are safe for
// concurrent use.
type Counter interface {
	// Count returns the estimated number of tokens of text.
	Count(text string) int
	// Name says which estimator this is, for logs ("approx",
	// "tiktoken:o200k_base").
	Name() string
}

// Spellings of the per-model `tokenizer` setting (read by internal/llm/tokens/tiktoken).
const (
	// SpecAuto (the empty string) picks tiktoken for models it knows and
	// Approx for the rest.
	SpecAuto = ""
	// SpecApprox selects [Approx].
	SpecApprox = "approx"
	// SpecTiktoken selects the encoding of the model, or o200k_base when
	// tiktoken does not know the model.
	SpecTiktoken = "tiktoken"
)

// ErrUnknownTokenizer is wrapped for a `tokenizer` value that is not
// recognised; it is a configuration error (exit 4 class).
var ErrUnknownTokenizer = errors.New("unknown tokenizer")
