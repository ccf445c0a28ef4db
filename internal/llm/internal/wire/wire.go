// Package wire holds what the HTTP providers share: making one call
// (posting a JSON request with classified failures, reading a bounded body
// or a stream), the two streaming framings (Server-Sent Events and
// newline-delimited JSON), and the function-tool shape of the request.
package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/llm"
)

// MaxBody bounds a non-streaming response body and one streamed line.
const MaxBody = 32 << 20

// maxErrorBody bounds the error body read for classification.
const maxErrorBody = 64 << 10

// Endpoint is one provider's HTTP destination.
type Endpoint struct {
	// Provider names the wire API in error messages ("openai"…).
	Provider string
	// Client sends the request; nil means http.DefaultClient.
	Client *http.Client
	// Header is sent on every request (credentials, versions, extras).
	Header http.Header
	// Secrets are redacted from every error message.
	Secrets []string
	// StreamAccept is the Accept header of a streamed request; empty
	// means "text/event-stream".
	StreamAccept string
	// Timeout bounds one whole call, streaming included ([Endpoint.Bound]);
	// 0 means none beyond the context's.
	Timeout time.Duration
	// Classify classifies a non-2xx answer from its status, header and
	// body (at most 64 KiB); nil means [llm.ClassifyHTTP], for a wire
	// whose error bodies say more than the status does (Gemini's
	// google.rpc status).
	Classify func(status int, header http.Header, body []byte) *llm.Error
}

// Bound returns ctx bounded by the Timeout of one whole call, and the
// function that releases it; the caller defers it until the answer is read.
func (e Endpoint) Bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.Timeout > 0 {
		return context.WithTimeout(ctx, e.Timeout)
	}
	return ctx, func() {}
}

// Post sends body as JSON to url and returns the response when its status
// is 2xx; the caller closes its Body. Every failure is a classified
// *llm.Error: transport errors by [llm.ClassifyTransport], other statuses
// by Classify (else [llm.ClassifyHTTP]). The bytes sent and read are
// counted on the context's [llm.Meter], when it has one.
func (e Endpoint) Post(ctx context.Context, url string, body any, stream bool) (*http.Response, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, &llm.Error{Class: llm.ClassFatal, Message: e.Provider + ": encode request: " + err.Error(), Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, &llm.Error{Class: llm.ClassFatal, Message: e.Provider + ": build request: " + llm.Redact(err.Error(), e.Secrets...), Err: err}
	}
	for k, vs := range e.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	switch {
	case stream && e.StreamAccept != "":
		req.Header.Set("Accept", e.StreamAccept)
	case stream:
		req.Header.Set("Accept", "text/event-stream")
	default:
		req.Header.Set("Accept", "application/json")
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	meter := llm.MeterFrom(ctx)
	meter.Sent(len(payload))
	resp, err := client.Do(req)
	if err != nil {
		return nil, llm.ClassifyTransport(ctx, e.Provider+": send request", redactErr(err, e.Secrets), e.Secrets...)
	}
	if meter != nil {
		resp.Body = &meteredBody{ReadCloser: resp.Body, m: meter}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if e.Classify != nil {
		return nil, e.Classify(resp.StatusCode, resp.Header, data)
	}
	return nil, llm.ClassifyHTTP(e.Provider, resp.StatusCode, resp.Header, data, e.Secrets...)
}

// meteredBody counts the bytes read from a response body on a Meter.
type meteredBody struct {
	io.ReadCloser
	m *llm.Meter
}

func (b *meteredBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.m.Received(n)
	return n, err
}

// Call makes one call of req within the endpoint's Timeout: it posts body
// to url and reads the answer, a stream with readStream, or a whole JSON
// body with decode. A streamed call the server answers with one JSON
// document ([IsJSON]) is decoded whole and handed to req.OnDelta in one
// piece ([llm.EmitWhole]).
func (e Endpoint) Call(ctx context.Context, url string, body any, req llm.Request,
	decode func([]byte) (llm.Response, error),
	readStream func(context.Context, *http.Response, func(llm.Delta)) (llm.Response, error)) (llm.Response, error) {
	ctx, cancel := e.Bound(ctx)
	defer cancel()
	resp, err := e.Post(ctx, url, body, req.Stream)
	if err != nil {
		return llm.Response{}, err
	}
	defer resp.Body.Close()
	if req.Stream && !IsJSON(resp) {
		return readStream(ctx, resp, req.OnDelta)
	}
	data, err := e.ReadBody(ctx, resp)
	if err != nil {
		return llm.Response{}, err
	}
	out, err := decode(data)
	if err == nil && req.Stream {
		llm.EmitWhole(out, req.OnDelta)
	}
	return out, err
}

// ReadBody reads a whole non-streaming response body, classifying a read
// failure (timeout, cut connection) and refusing bodies over [MaxBody].
func (e Endpoint) ReadBody(ctx context.Context, resp *http.Response) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, e.ReadError(ctx, err)
	}
	if len(data) > MaxBody {
		return nil, llm.InvalidResponse(e.Provider+": read response", fmt.Errorf("body over %d bytes", MaxBody))
	}
	return data, nil
}

// ReadError classifies an error met while reading a response body or
// stream: the context's deadline or a cut connection.
func (e Endpoint) ReadError(ctx context.Context, err error) *llm.Error {
	var le *llm.Error
	if errors.As(err, &le) {
		return le
	}
	if ctx.Err() == nil && isCutShort(err) {
		return llm.InvalidResponse(e.Provider+": truncated response", err)
	}
	return llm.ClassifyTransport(ctx, e.Provider+": read response", err, e.Secrets...)
}

// isCutShort reports whether err means the peer ended the body early.
func isCutShort(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection reset") || strings.Contains(s, "unexpected EOF")
}

func redactErr(err error, secrets []string) error {
	msg := llm.Redact(err.Error(), secrets...)
	if msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}

type redacted struct {
	msg string
	err error
}

// Error returns the redacted message.
func (r *redacted) Error() string { return r.msg }

// Unwrap returns the original error, so errors.Is and errors.As still see
// timeouts and the like.
func (r *redacted) Unwrap() error { return r.err }

// JoinURL joins a base URL and a path with exactly one slash.
func JoinURL(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}

// Header builds the header of an endpoint: extra headers first, then the
// credential headers given as name/value pairs, which win.
func Header(extra map[string]string, pairs ...string) http.Header {
	h := http.Header{}
	for k, v := range extra {
		h.Set(k, v)
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			h.Set(pairs[i], pairs[i+1])
		}
	}
	return h
}

// IsJSON reports whether a response is one JSON document: a server that
// ignores "stream": true, or answers an error with status 200.
func IsJSON(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
}
