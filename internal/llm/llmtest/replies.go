package llmtest

import "net/http"

// Ready-made failure replies. Each renders in the wire format of the
// request it answers.

// Unauthorized is a 401 invalid-key answer.
func Unauthorized() Reply {
	return Reply{Status: http.StatusUnauthorized, ErrorType: "authentication_error", ErrorMessage: "Incorrect API key provided"}
}

// Forbidden is a 403 without quota wording.
func Forbidden() Reply {
	return Reply{Status: http.StatusForbidden, ErrorType: "permission_error", ErrorMessage: "Your API key does not have permission to use this model"}
}

// ForbiddenQuota is a 403 whose body speaks of quota.
func ForbiddenQuota() Reply {
	return Reply{Status: http.StatusForbidden, ErrorType: "permission_error", ErrorMessage: "Monthly quota exceeded for this key"}
}

// PaymentRequired is a 402 (OpenRouter's answer when credits run out).
func PaymentRequired() Reply {
	return Reply{Status: http.StatusPaymentRequired, ErrorType: "payment_required", ErrorMessage: "Insufficient credits"}
}

// QuotaExceeded is OpenAI's 429 insufficient_quota answer.
func QuotaExceeded() Reply {
	return Reply{Status: http.StatusTooManyRequests, ErrorType: "insufficient_quota",
		ErrorMessage: "You exceeded your current quota, please check your plan and billing details."}
}

// RateLimited is a 429 with the given Retry-After value (seconds or an
// HTTP date; empty sends no header).
func RateLimited(retryAfter string) Reply {
	r := Reply{Status: http.StatusTooManyRequests, ErrorType: "rate_limit_error", ErrorMessage: "Rate limit reached for requests"}
	if retryAfter != "" {
		r.Header = map[string]string{"Retry-After": retryAfter}
	}
	return r
}

// ServerError is a 5xx answer (500, 502, 503, Anthropic's 529…).
func ServerError(status int) Reply {
	typ := "api_error"
	if status == 529 {
		typ = "overloaded_error"
	}
	return Reply{Status: status, ErrorType: typ, ErrorMessage: "The server had an error while processing your request"}
}

// BadRequest is a 400 answer, such as an unknown parameter or a prompt
// that is too long.
func BadRequest(message string) Reply {
	return Reply{Status: http.StatusBadRequest, ErrorType: "invalid_request_error", ErrorMessage: message}
}
