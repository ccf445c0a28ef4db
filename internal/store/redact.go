package store

import (
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/secret"
)

// Redacted replaces a secret value in stored records.
const Redacted = "[REDACTED]"

// IsSecretName reports whether a variable, map key or flag name holds a
// secret. It is secret.IsSecretName, the one rule salve has.
func IsSecretName(name string) bool { return secret.IsSecretName(name) }

// RedactMap returns a copy of m with the values of secret-looking keys
// replaced by Redacted, recursing into nested maps. A nil map stays nil.
func RedactMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case IsSecretName(k):
			out[k] = Redacted
		default:
			if sub, ok := v.(map[string]any); ok {
				v = RedactMap(sub)
			}
			out[k] = v
		}
	}
	return out
}

// setEnvFlag is aider's flag that sets an environment variable, VAR=VALUE.
const setEnvFlag = "--set-env"

// redactAssignment redacts the value of VAR=VALUE when VAR looks secret.
func redactAssignment(kv string) string {
	name, _, ok := strings.Cut(kv, "=")
	if ok && IsSecretName(name) {
		return name + "=" + Redacted
	}
	return kv
}

// RedactRequest returns a copy of req whose environment values and command
// arguments that look like secrets are replaced by Redacted: the values of
// secret-looking variables, "--openai-api-key=V" forms, the argument
// after a secret-looking flag ("--api-key V"), and the value of a secret
// variable set with aider's "--set-env VAR=V".
func RedactRequest(req contract.ToolRunRequestV1) contract.ToolRunRequestV1 {
	if req.Env != nil {
		env := make(map[string]string, len(req.Env))
		for k, v := range req.Env {
			if IsSecretName(k) {
				v = Redacted
			}
			env[k] = v
		}
		req.Env = env
	}
	req.Context = RedactMap(req.Context)
	if req.Cmd != nil {
		cmd := make([]string, len(req.Cmd))
		copy(cmd, req.Cmd)
		for i := 1; i < len(cmd); i++ {
			arg := cmd[i]
			if !strings.HasPrefix(arg, "-") {
				continue
			}
			name, value, hasValue := strings.Cut(arg, "=")
			if name == setEnvFlag {
				// aider's --set-env VAR=VALUE (or --set-env=VAR=VALUE)
				// sets a variable: a secret one keeps its name only.
				if hasValue {
					cmd[i] = name + "=" + redactAssignment(value)
				} else if i+1 < len(cmd) && !strings.HasPrefix(cmd[i+1], "-") {
					cmd[i+1] = redactAssignment(cmd[i+1])
					i++
				}
				continue
			}
			if !IsSecretName(name) {
				continue
			}
			if hasValue {
				cmd[i] = name + "=" + Redacted
			} else if i+1 < len(cmd) {
				cmd[i+1] = Redacted
				i++
			}
		}
		req.Cmd = cmd
	}
	return req
}
