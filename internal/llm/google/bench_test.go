package google

import (
	"context"
	"net/http"
	"testing"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/llm/llmtest/providertest"
)

// BenchmarkDecode measures decoding one typical answer (llmtest.SampleReply)
// from memory: the whole JSON body, and the whole stream.
func BenchmarkDecode(b *testing.B) {
	p := New(Options{BaseURL: "http://127.0.0.1:1"})
	providertest.Decode(b, llmtest.Gemini, p.decode, func(ctx context.Context, resp *http.Response) (llm.Response, error) {
		return p.readStream(ctx, resp, nil)
	})
}

// BenchmarkEncode measures building and encoding a 31-message request.
func BenchmarkEncode(b *testing.B) {
	providertest.Encode(b, buildRequest)
}
