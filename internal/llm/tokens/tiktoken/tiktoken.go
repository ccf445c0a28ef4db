// Package tiktoken counts tokens exactly for OpenAI models, with their
// byte-pair encodings (github.com/tiktoken-go/tokenizer, whose vocabularies
// are compiled into the binary: nothing is downloaded), and picks a counter
// from a model's `tokenizer` setting (see [New]). Other models get
// [tokens.Approx].
//
// The vocabularies are large, so an encoding is built on its first Count,
// never at start-up: a process that never counts OpenAI tokens never pays
// for them. Linking this package still costs the binary the vocabularies'
// size; a binary that only needs an estimate imports package tokens alone.
package tiktoken

import (
	"fmt"
	"strings"
	"sync"

	"github.com/salve-dev/salve/internal/llm/tokens"
	"github.com/tiktoken-go/tokenizer"
)

// encodings are the tiktoken encodings that can be named directly.
var encodings = map[string]tokenizer.Encoding{
	"o200k_base":  tokenizer.O200kBase,
	"cl100k_base": tokenizer.Cl100kBase,
	"p50k_base":   tokenizer.P50kBase,
	"p50k_edit":   tokenizer.P50kEdit,
	"r50k_base":   tokenizer.R50kBase,
}

// New returns the counter for a model given its `tokenizer` setting:
//   - "" (auto): tiktoken when the model name is one tiktoken knows (gpt-4o,
//     gpt-4.1-mini, o3, …; a "provider/" prefix is ignored), else
//     [tokens.Approx];
//   - "approx": [tokens.Approx];
//   - "tiktoken": the model's encoding, or o200k_base for an unknown model;
//   - "tiktoken:ENC" or "ENC" with ENC one of o200k_base, cl100k_base,
//     p50k_base, p50k_edit, r50k_base;
//   - "tiktoken:MODEL": the encoding of that OpenAI model.
//
// Any other value is an error wrapping [tokens.ErrUnknownTokenizer]. New
// never loads a vocabulary; the first Count does.
func New(spec, model string) (tokens.Counter, error) {
	spec = strings.ToLower(strings.TrimSpace(spec))
	switch spec {
	case tokens.SpecAuto:
		if enc, ok := modelEncoding(model); ok {
			return tiktokenCounter(enc), nil
		}
		return tokens.Approx{}, nil
	case tokens.SpecApprox:
		return tokens.Approx{}, nil
	case tokens.SpecTiktoken:
		if enc, ok := modelEncoding(model); ok {
			return tiktokenCounter(enc), nil
		}
		return tiktokenCounter(tokenizer.O200kBase), nil
	}
	name := strings.TrimPrefix(spec, tokens.SpecTiktoken+":")
	if enc, ok := encodings[name]; ok {
		return tiktokenCounter(enc), nil
	}
	if name != spec {
		if enc, ok := modelEncoding(name); ok {
			return tiktokenCounter(enc), nil
		}
	}
	return nil, fmt.Errorf("tokenizer %q for model %q: %w", spec, model, tokens.ErrUnknownTokenizer)
}

// modelEncoding maps an OpenAI model name to its encoding, without loading
// it. tokenizer.ForModel would build the codec, so the lookup is done on a
// throwaway name first and the codec is built lazily by the counter.
func modelEncoding(model string) (tokenizer.Encoding, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if m == "" {
		return "", false
	}
	for _, r := range modelPrefixes {
		if m == r.name || strings.HasPrefix(m, r.name+"-") || strings.HasPrefix(m, r.name+".") {
			return r.enc, true
		}
	}
	return "", false
}

// modelPrefixes maps OpenAI model families to encodings, longest names
// first so that "gpt-4o" wins over "gpt-4". It mirrors tiktoken's own table.
var modelPrefixes = []struct {
	name string
	enc  tokenizer.Encoding
}{
	{"chatgpt-4o", tokenizer.O200kBase},
	{"gpt-4.1", tokenizer.O200kBase},
	{"gpt-4.5", tokenizer.O200kBase},
	{"gpt-4o", tokenizer.O200kBase},
	{"gpt-5", tokenizer.O200kBase},
	{"o1", tokenizer.O200kBase},
	{"o3", tokenizer.O200kBase},
	{"o4", tokenizer.O200kBase},
	{"gpt-4", tokenizer.Cl100kBase},
	{"gpt-3.5", tokenizer.Cl100kBase},
	{"gpt-35", tokenizer.Cl100kBase},
	{"text-embedding-3", tokenizer.Cl100kBase},
	{"text-embedding-ada", tokenizer.Cl100kBase},
}

// lazyCodec builds one tiktoken codec on first use and shares it.
type lazyCodec struct {
	enc   tokenizer.Encoding
	once  sync.Once
	codec tokenizer.Codec
	err   error
}

func (l *lazyCodec) get() (tokenizer.Codec, error) {
	l.once.Do(func() { l.codec, l.err = tokenizer.Get(l.enc) })
	return l.codec, l.err
}

// codecs holds one lazily built codec per encoding. The map itself is never
// written after package initialisation; each entry builds itself once.
var codecs = func() map[tokenizer.Encoding]*lazyCodec {
	m := make(map[tokenizer.Encoding]*lazyCodec, len(encodings))
	for _, enc := range encodings {
		m[enc] = &lazyCodec{enc: enc}
	}
	return m
}()

// Counter counts exactly with one OpenAI encoding. Its zero value is not
// usable; get one from [New].
type Counter struct {
	lazy *lazyCodec
}

var _ tokens.Counter = Counter{}

func tiktokenCounter(enc tokenizer.Encoding) Counter {
	return Counter{lazy: codecs[enc]}
}

// Name implements [tokens.Counter].
func (t Counter) Name() string { return "tiktoken:" + string(t.lazy.enc) }

// Count implements [tokens.Counter]. Text that the encoding cannot handle (it should
// not happen: the codecs replace invalid UTF-8) falls back to [tokens.Approx].
func (t Counter) Count(text string) int {
	if text == "" {
		return 0
	}
	c, err := t.lazy.get()
	if err != nil {
		return tokens.Approx{}.Count(text)
	}
	n, err := c.Count(text)
	if err != nil {
		return tokens.Approx{}.Count(text)
	}
	return n
}
